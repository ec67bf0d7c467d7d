import type { Readable } from 'node:stream';
import type { SendMessage } from '../messages/message.validator';
import type { ProfileFields } from '../profiles/profile.validator';
import type { TemplateDraft } from '../templates/template.validator';

/** The business phone a request acts for, with its account's network credentials. */
/** A business phone as SQL selects it beside a message or template (`phone_ref` is the phones row id). */
export interface PhoneColumns {
  phone_ref: string;
  account_id: string;
  phone: string;
  phone_id: string;
  waba_id: string | null;
}

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

export interface CreatedTemplate {
  id: string;
  status: string;
  category: string;
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
  createTemplate(phone: PhoneContext, draft: TemplateDraft): Promise<CreatedTemplate>;
  getProfile(phone: PhoneContext): Promise<Record<string, unknown>>;
  updateProfile(phone: PhoneContext, fields: ProfileFields): Promise<void>;
  /** The gateway recorded a sent message: the sandbox starts playing its statuses (the real network reports its own). */
  messageStored(phone: PhoneContext, message: SentMessage & { to: string }): void;
  /** The gateway recorded a new template: the sandbox schedules its review. */
  templateStored(phone: PhoneContext, template: CreatedTemplate & { bodyText: string }): void;
}

export const CHAT_PROVIDER = Symbol('CHAT_PROVIDER');
