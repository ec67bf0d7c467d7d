import { QuickCheck } from '@app/errors';
import { ApiProperty, ApiPropertyOptional, getSchemaPath, type ApiBodyOptions } from '@nestjs/swagger';
import { MESSAGE_TYPES, type MediaRef, type MessageType, type SendMessage } from '../network/chat-provider';
import { oneOf, optional, PHONE_NUMBER, present, Rule, RULE_SETTINGS, shape, text, variant, type Refusal } from '../common/rule.decorator';
import {
  AudioContent,
  contactsRefusal,
  Contact,
  DocumentContent,
  ImageContent,
  INTERACTIVE_KINDS,
  LocationContent,
  MEDIA_CONTENT,
  MEDIA_TYPES,
  MESSAGE_CONTENT_MODELS,
  MESSAGE_LIMITS,
  ReactionContent,
  StickerContent,
  TemplateContent,
  TextContent,
  VideoContent,
  type MediaType,
} from './message-content.dto';

const RECIPIENT = { max: 32, pattern: PHONE_NUMBER, rule: 'must be a phone number in digits with its country code' };
const CALLBACK_DATA = 512;
const COMMON_FIELDS = ['messaging_product', 'recipient_type', 'to', 'type', 'context', 'biz_opaque_callback_data', 'send_at'];
/** The furthest ahead `send_at` may be. */
export const SCHEDULE_MAX_DAYS = 30;
const DAY_MS = 86_400_000;
/** ISO 8601 with its offset (`Z` or `±hh:mm`), seconds and up to 6 decimals optional. */
const SEND_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Epoch milliseconds of a `send_at` of the documented form; NaN otherwise (a day or hour that does not exist included). */
export function sendAtMillis(value: unknown): number {
  if (typeof value !== 'string' || !SEND_AT.test(value)) return NaN;
  const [, month, day, hour, minute] = /^\d{4}-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(value)!.map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59) return NaN;
  const ms = Date.parse(value);
  // Date.parse rolls 2026-02-30 over to March: the calendar day must survive the round trip (in the value's own offset).
  const offset = value.endsWith('Z') ? 0 : (value.at(-6) === '-' ? -1 : 1) * (Number(value.slice(-5, -3)) * 60 + Number(value.slice(-2))) * 60_000;
  return Number.isFinite(ms) && new Date(ms + offset).getUTCDate() === day ? ms : NaN;
}

/** `send_at`: a time in the future, at most SCHEDULE_MAX_DAYS ahead. */
function sendAtRefusal(value: unknown): Refusal {
  const ms = sendAtMillis(value);
  if (Number.isNaN(ms)) return 'must be an ISO 8601 time with its offset, e.g. 2026-12-24T09:00:00Z';
  const now = Date.now();
  if (ms <= now) return 'must be in the future';
  return ms > now + SCHEDULE_MAX_DAYS * DAY_MS ? `must be at most ${SCHEDULE_MAX_DAYS} days ahead` : null;
}
const READ_FIELDS = ['messaging_product', 'status', 'message_id'];

/** The check of each kind's content object. */
const CONTENT: Record<MessageType, (value: unknown) => Refusal> = {
  text: (v) => shape(v, TextContent),
  ...(Object.fromEntries(Object.entries(MEDIA_CONTENT).map(([kind, cls]) => [kind, (v: unknown) => shape(v, cls)])) as Record<
    MediaType,
    (v: unknown) => Refusal
  >),
  location: (v) => shape(v, LocationContent),
  reaction: (v) => shape(v, ReactionContent),
  contacts: contactsRefusal,
  interactive: (v) => variant(v, 'type', INTERACTIVE_KINDS),
  template: (v) => shape(v, TemplateContent),
};

export class MessageContext {
  @ApiProperty({ maxLength: MESSAGE_LIMITS.messageId, description: 'The message replied to.' })
  @Rule('contextMessage', (v) => text(v, { max: MESSAGE_LIMITS.messageId }))
  message_id!: string;
}

/** The kind a send body holds: `type`, text by default. */
export function kindOf(body: Record<string, unknown>): MessageType {
  return present(body.type) ? (body.type as MessageType) : 'text';
}

const FIRST_REFUSAL = new WeakMap<object, [string, string] | null>();

/**
 * The first refusal of the body's own fields, in the network's order: `messaging_product`; for a read mark its
 * fields; else `type`, fields that are not the kind's, then `recipient_type`, `to`, `context` and
 * `biz_opaque_callback_data` — all before the content. Each field's rule reports only its own refusal from here,
 * so the first refused field is the network's whatever order class-validator goes in. Worked out once per body.
 */
function firstRefusal(body: Record<string, unknown>): [string, string] | null {
  let found = FIRST_REFUSAL.get(body);
  if (found === undefined) {
    found = envelopeRefusal(body);
    FIRST_REFUSAL.set(body, found);
  }
  return found;
}

/** The fields sent (an instance of the DTO holds every declared field, undefined when not sent; JSON has no undefined). */
function sentKeys(body: Record<string, unknown>): string[] {
  return Object.keys(body).filter((key) => body[key] !== undefined);
}

function envelopeRefusal(body: Record<string, unknown>): [string, string] | null {
  const refused = (field: string, refusal: Refusal): [string, string] | null => (refusal === null ? null : [field, refusal]);
  const product = refused('messaging_product', oneOf(body.messaging_product, [RULE_SETTINGS.network]));
  if (product) return product;
  if (present(body.status)) {
    const extra = sentKeys(body).find((key) => !READ_FIELDS.includes(key));
    if (extra !== undefined) return [extra, 'is not a known parameter'];
    return refused('status', oneOf(body.status, ['read'])) ?? refused('message_id', text(body.message_id, { max: MESSAGE_LIMITS.messageId }));
  }
  const type = present(body.type) ? refused('type', oneOf(body.type, MESSAGE_TYPES)) : null;
  if (type) return type;
  const kind = kindOf(body);
  const extra = sentKeys(body).find((key) => key !== kind && !COMMON_FIELDS.includes(key));
  if (extra !== undefined) return [extra, 'is not a known parameter'];
  return (
    refused(
      'recipient_type',
      optional(body.recipient_type, (v) => oneOf(v, ['individual'])),
    ) ??
    refused('to', text(body.to, RECIPIENT)) ??
    (present(body.context) ? refused('context', shape(body.context, MessageContext)) : null) ??
    refused(
      'biz_opaque_callback_data',
      optional(body.biz_opaque_callback_data, (v) => text(v, { max: CALLBACK_DATA })),
    ) ??
    refused('send_at', optional(body.send_at, sendAtRefusal))
  );
}

/** A field of the body: refused when it is the first refused field (see firstRefusal). */
const Field = (field: string) => Rule(field, (_, body) => (firstRefusal(body)?.[0] === field ? firstRefusal(body)![1] : null));

/** A kind's content: as Field, and once the body's own fields hold, checked by the kind's DTO when it is the body's kind. */
const Content = (kind: MessageType) =>
  Rule(kind, (value, body) => {
    const first = firstRefusal(body);
    if (first) return first[0] === kind ? first[1] : null;
    return !present(body.status) && kindOf(body) === kind ? CONTENT[kind](value) : null;
  });

const isJsonObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A key named like an Object.prototype member at any depth: the shared pipe refuses those, so the quick check leaves them to it. */
function holdsInheritedKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsInheritedKey);
  for (const key of Object.keys(value)) {
    if (key in Object.prototype || key === 'prototype' || holdsInheritedKey((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/**
 * The send is the gateway's hot path: a body is checked first by the same rules the DTO's decorators run, straight
 * on the JSON, without class-transformer or class-validator (a tenth of the CPU). What it accepts goes on as sent;
 * anything else takes the full validation, which words the refusal. It accepts only what the DTO accepts
 * (message.dto.spec.ts holds it to that).
 */
export function acceptsMessage(body: unknown): boolean {
  if (!isJsonObject(body) || firstRefusal(body) !== null || holdsInheritedKey(body)) return false;
  if (present(body.status)) return true;
  const kind = kindOf(body);
  return CONTENT[kind](body[kind]) === null;
}

const TEXT_FIELDS = new Set(['messaging_product', 'recipient_type', 'to', 'type', 'text']);

/** The commonest body, a plain text message (no context, no callback data), checked in half the time acceptsMessage takes. */
export function acceptsTextMessage(body: unknown): boolean {
  if (!isJsonObject(body) || body.messaging_product !== RULE_SETTINGS.network) return false;
  if (body.type !== undefined && body.type !== 'text') return false;
  if (body.recipient_type !== undefined && body.recipient_type !== 'individual') return false;
  for (const key in body) if (!TEXT_FIELDS.has(key) || !Object.prototype.hasOwnProperty.call(body, key)) return false;
  if (text(body.to, RECIPIENT) !== null) return false;
  const content = body.text;
  if (!isJsonObject(content)) return false;
  for (const key in content) if ((key !== 'body' && key !== 'preview_url') || !Object.prototype.hasOwnProperty.call(content, key)) return false;
  if (content.preview_url !== undefined && typeof content.preview_url !== 'boolean') return false;
  const textBody = content.body;
  // Fewer UTF-16 units than the limit means fewer code points too: the common case skips counting them.
  return typeof textBody === 'string' && textBody.length > 0 && (textBody.length <= MESSAGE_LIMITS.textBody || [...textBody].length <= MESSAGE_LIMITS.textBody);
}

/**
 * The body of POST api/Messages: a message whose `type` names the field holding its content (text by default),
 * or a read mark `{messaging_product, status: "read", message_id}`. Validated by the global pipe; the OpenAPI
 * document describes it as one of the kinds (SEND_MESSAGE_DOCS).
 */
@QuickCheck((body) => acceptsTextMessage(body) || acceptsMessage(body))
export class SendMessageBody {
  @Field('messaging_product') messaging_product!: string;
  @Field('status') status?: 'read';
  @Field('message_id') message_id?: string;
  @Field('type') type?: MessageType;
  @Field('recipient_type') recipient_type?: 'individual';
  @Field('to') to?: string;
  @Field('context') context?: MessageContext;
  @Field('biz_opaque_callback_data') biz_opaque_callback_data?: string;
  @Field('send_at') send_at?: string;
  @Content('text') text?: TextContent;
  @Content('image') image?: ImageContent;
  @Content('audio') audio?: AudioContent;
  @Content('video') video?: VideoContent;
  @Content('document') document?: DocumentContent;
  @Content('sticker') sticker?: StickerContent;
  @Content('location') location?: LocationContent;
  @Content('contacts') contacts?: Contact[];
  @Content('interactive') interactive?: unknown;
  @Content('template') template?: TemplateContent;
  @Content('reaction') reaction?: ReactionContent;
}

/** What every message kind holds beside its content (documentation of SendMessageBody's shared fields). */
export class MessageEnvelope {
  @ApiProperty({ example: 'whatsapp', description: "The gateway's network (GATEWAY_NETWORK)." })
  messaging_product!: string;

  @ApiPropertyOptional({ enum: ['individual'] })
  recipient_type?: string;

  @ApiProperty({ description: 'The recipient: digits with the country code.', example: '15551234567', maxLength: RECIPIENT.max })
  to!: string;

  @ApiPropertyOptional({ type: () => MessageContext, description: 'Reply to a message.' })
  context?: MessageContext;

  @ApiPropertyOptional({ maxLength: CALLBACK_DATA })
  biz_opaque_callback_data?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-12-24T09:00:00Z',
    description: `Send it then instead of now (ISO 8601 with its offset, in the future, at most ${SCHEDULE_MAX_DAYS} days ahead): the answer's id is the scheduled message's, for GET and DELETE api/Messages/{id}.`,
  })
  send_at?: string;
}

export class ReadMark {
  @ApiProperty({ example: 'whatsapp' }) messaging_product!: string;
  @ApiProperty({ enum: ['read'] }) status!: string;
  @ApiProperty({ maxLength: MESSAGE_LIMITS.messageId, description: 'The received message to mark as read.' }) message_id!: string;
}

const CONTENT_DOCS: Record<MessageType, { type: () => object; isArray?: boolean; oneOf?: { $ref: string }[] }> = {
  text: { type: () => TextContent },
  image: { type: () => ImageContent },
  audio: { type: () => AudioContent },
  video: { type: () => VideoContent },
  document: { type: () => DocumentContent },
  sticker: { type: () => StickerContent },
  location: { type: () => LocationContent },
  contacts: { type: () => Contact, isArray: true },
  interactive: { type: () => Object, oneOf: Object.values(INTERACTIVE_KINDS).map((cls) => ({ $ref: getSchemaPath(cls) })) },
  template: { type: () => TemplateContent },
  reaction: { type: () => ReactionContent },
};

/** One documented class per kind (`TextMessage`, `ImageMessage`…): the envelope, `type` and the kind's content. */
function kindMessage(kind: MessageType): new () => MessageEnvelope {
  class KindMessage extends MessageEnvelope {}
  Object.defineProperty(KindMessage, 'name', { value: `${kind[0].toUpperCase()}${kind.slice(1)}Message` });
  // What TypeScript would record for a declared property: the document builder reads it.
  Reflect.defineMetadata('design:type', String, KindMessage.prototype, 'type');
  Reflect.defineMetadata('design:type', CONTENT_DOCS[kind].isArray ? Array : Object, KindMessage.prototype, kind);
  ApiProperty({ enum: [kind], required: kind !== 'text', description: kind === 'text' ? 'text when left out.' : undefined })(KindMessage.prototype, 'type');
  const { oneOf: choices, ...docs } = CONTENT_DOCS[kind];
  ApiProperty(choices ? { oneOf: choices } : docs)(KindMessage.prototype, kind);
  return KindMessage;
}

export const MESSAGE_KINDS = MESSAGE_TYPES.map(kindMessage);

/** Every model the send body's schema refers to (for @ApiExtraModels). */
export const SEND_MESSAGE_MODELS = [...MESSAGE_KINDS, ReadMark, ...Object.values(INTERACTIVE_KINDS), ...MESSAGE_CONTENT_MODELS];

/** The send body in the OpenAPI document: one of the kinds. The examples work as sent against the sandbox. */
export const SEND_MESSAGE_DOCS: ApiBodyOptions = {
  description:
    'A message to send (`type` names the object holding its content; text by default), or `{messaging_product, status: "read", message_id}` to mark a received message as read.',
  schema: { oneOf: [...MESSAGE_KINDS, ReadMark].map((cls) => ({ $ref: getSchemaPath(cls) })) },
  examples: {
    text: {
      summary: 'A text message',
      value: { messaging_product: 'whatsapp', recipient_type: 'individual', to: '15551234567', type: 'text', text: { body: 'Hello from the gateway' } },
    },
    image: {
      summary: 'An image by link, with a caption',
      value: { messaging_product: 'whatsapp', to: '15551234567', type: 'image', image: { link: 'https://example.com/mug.jpg', caption: 'Our new mug' } },
    },
    buttons: {
      summary: 'Reply buttons',
      value: {
        messaging_product: 'whatsapp',
        to: '15551234567',
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'Keep the order?' },
          action: {
            buttons: [
              { type: 'reply', reply: { id: 'yes', title: 'Yes' } },
              { type: 'reply', reply: { id: 'no', title: 'No' } },
            ],
          },
        },
      },
    },
  },
};

export interface MarkRead {
  kind: 'read';
  messageId: string;
}

export type MessageRequest = SendMessage | MarkRead;

/** Free-form objects of a flow: whatever they hold is no media reference. */
const FREE_FORM_FIELDS = new Set(['data', 'flow_action_data']);

/** The media ids a content object refers to (`{image: {id}}` at any depth), with their paths, in body order. */
function mediaRefs(value: unknown, path: string, found: MediaRef[]): MediaRef[] {
  if (Array.isArray(value)) value.forEach((item, i) => mediaRefs(item, `${path}.${i}`, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (FREE_FORM_FIELDS.has(key)) continue;
      const id = (MEDIA_CONTENT as Record<string, unknown>)[key] && inner !== null && typeof inner === 'object' ? (inner as { id?: unknown }).id : undefined;
      if (typeof id === 'string') found.push({ field: `${path}.${key}.id`, id });
      else mediaRefs(inner, `${path}.${key}`, found);
    }
  }
  return found;
}

/** What a validated send body asks for: a message (its media ids and template named) or a read mark. */
export function messageRequest(body: SendMessageBody): MessageRequest {
  if (present(body.status)) return { kind: 'read', messageId: body.message_id! };
  const type = kindOf(body as unknown as Record<string, unknown>);
  const payload: Record<string, unknown> = {};
  // `send_at` is the gateway's: the network gets the message as it would have been sent now.
  for (const [key, value] of Object.entries(body)) if (value !== undefined && key !== 'send_at') payload[key] = value;
  payload.type = type;
  const content = payload[type];
  const mediaIds = MEDIA_TYPES.includes(type as MediaType)
    ? typeof (content as { id?: unknown }).id === 'string'
      ? [{ field: `${type}.id`, id: (content as { id: string }).id }]
      : []
    : mediaRefs(content, type, []);
  return { kind: 'send', to: body.to!, type, payload, mediaIds, template: type === 'template' ? templateNamed(content as TemplateContent) : undefined };
}

function templateNamed(template: TemplateContent): SendMessage['template'] {
  let bodyParameters = 0;
  for (const component of template.components ?? []) {
    const { type, parameters } = component as { type: string; parameters?: unknown };
    if (type.toLowerCase() === 'body') bodyParameters = Array.isArray(parameters) ? parameters.length : 0;
  }
  return { name: template.name, language: template.language.code, bodyParameters };
}
