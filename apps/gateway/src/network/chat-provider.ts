import type { Readable } from 'node:stream';

/** The business phone a request acts for, with its account's network credentials. */
export interface PhoneContext {
  accountId: string;
  /** The phones row id. */
  phoneRef: string;
  /** The business phone number (digits). */
  phone: string;
  /** The network's phone-number id. */
  phoneId: string;
  wabaId: string | null;
  /** The account's Graph API access token, decrypted (cloud only). */
  accessToken: string | null;
}

export const MESSAGE_TYPES = ['text', 'interactive', 'contacts', 'location', 'image', 'audio', 'video', 'document', 'sticker', 'reaction', 'template'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** A checked message to send (messages/message.dto makes it). */
export interface SendMessage {
  kind: 'send';
  to: string;
  type: MessageType;
  /** The validated body, as the network takes it (type filled in). */
  payload: Record<string, unknown>;
  /** Media ids the message refers to: each must be one of the account's. */
  mediaIds: MediaRef[];
  template?: { name: string; language: string; bodyParameters: number };
}

/** A media id used in a message, and where. */
export interface MediaRef {
  field: string;
  id: string;
}

export interface SentMessage {
  messageId: string;
  waId: string;
}

export interface MediaUpload {
  /** The file's bytes, already checked against its kind. */
  stream: Readable;
  mimeType: string;
  kind: string;
  filename: string;
}

export const TEMPLATE_CATEGORIES = ['AUTHENTICATION', 'MARKETING', 'UTILITY'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];

/** A checked template to create (templates/template.dto makes it). */
export interface TemplateDraft {
  name: string;
  language: string;
  category: TemplateCategory;
  allowCategoryChange: boolean;
  components: unknown[];
  messageSendTtlSeconds?: number;
  /** The body text (empty for authentication templates, whose body the network writes). */
  bodyText: string;
}

export interface CreatedTemplate {
  id: string;
  status: string;
  category: string;
}

/** The business profile fields a phone may set (profiles/profile.validator checks them). */
export interface ProfileFields {
  address?: string;
  description?: string;
  vertical?: string;
  about?: string;
  email?: string;
  websites?: string[];
}

/**
 * The chat network, as the gateway uses it. `cloud` calls the real network; `sandbox`
 * behaves like it without leaving the process. Chosen by GATEWAY_PROVIDER.
 */
export interface ChatProvider {
  send(phone: PhoneContext, message: SendMessage): Promise<SentMessage>;
  markRead(phone: PhoneContext, messageId: string): Promise<void>;
  /** Stores or forwards a file; returns the media id to use in messages. */
  uploadMedia(phone: PhoneContext, upload: MediaUpload): Promise<string>;
  /** The bytes of a media of the account (uploaded, or received in a customer's message). */
  downloadMedia(phone: PhoneContext, mediaId: string): Promise<Readable>;
  /** The gateway did not record an uploaded file (a bad form, an id taken): the sandbox deletes it (the real network keeps its own). */
  discardMedia(phone: PhoneContext, mediaId: string): Promise<void>;
  createTemplate(phone: PhoneContext, draft: TemplateDraft): Promise<CreatedTemplate>;
  getProfile(phone: PhoneContext): Promise<Record<string, unknown>>;
  updateProfile(phone: PhoneContext, fields: ProfileFields): Promise<void>;
  /** The gateway recorded a sent message: the sandbox starts playing its statuses (the real network reports its own). */
  messageStored(phone: PhoneContext, message: SentMessage & { to: string }): void;
  /** The gateway recorded a new template: the sandbox schedules its review. */
  templateStored(phone: PhoneContext, template: CreatedTemplate & { bodyText: string }): void;
}

export const CHAT_PROVIDER = Symbol('CHAT_PROVIDER');
