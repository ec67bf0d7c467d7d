import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { freeForm, oneOf, optional, PHONE_NUMBER, Rule, shape, text } from '../common/rule.decorator';

/** The kinds of message a customer sends, as the network notifies them. */
export const INBOUND_TYPES = [
  'text',
  'image',
  'audio',
  'video',
  'document',
  'sticker',
  'location',
  'contacts',
  'interactive',
  'button',
  'reaction',
  'order',
] as const;
export type InboundType = (typeof INBOUND_TYPES)[number];
/** Kinds whose object names a media id (one the account uploaded, in the sandbox). */
export const INBOUND_MEDIA = ['image', 'audio', 'video', 'document', 'sticker'];

const MESSAGE_ID = /^[\x21-\x7e]{1,255}$/;

export class InboundText {
  @Rule('inboundBody', (v) => text(v, { max: 4096 }))
  body!: string;
}

export class InboundMedia {
  @Rule('inboundMediaId', (v) => text(v, { max: 128 }))
  id!: string;

  @Rule('inboundCaption', (v) => optional(v, (c) => text(c, { min: 0, max: 1024 })))
  caption?: string;

  @Rule('inboundFilename', (v) => optional(v, (f) => text(f, { max: 240 })))
  filename?: string;
}

/** The object named after the message's `type`: required for that type, refused for the others. */
function content(kind: InboundType, check: (value: unknown) => string | null) {
  return Rule(`inbound_${kind}`, (value, dto) => {
    if (dto.type !== kind) return value === undefined ? null : `is not allowed with type ${String(dto.type)}`;
    if (value === undefined || value === null) return 'is required';
    return check(value);
  });
}
const object = (value: unknown) => (typeof value === 'object' && !Array.isArray(value) ? freeForm(value) : 'must be an object');
const media = (value: unknown) => shape(value, InboundMedia);
const contentDocs = (kind: string, extra = '') =>
  ({ type: 'object', additionalProperties: true, description: `With type ${kind}: the network's ${kind} object${extra}.` }) as const;

/**
 * POST api/Sandbox/Inbound: a customer's message, as the network would notify it. The gateway adds
 * `id` (when not given) and `timestamp`, then takes it as it takes the network's notifications.
 */
export class SandboxInboundBody {
  @ApiProperty({ description: "The customer's phone number with country code; its digits become `from` / `wa_id`.", example: '15550123456' })
  @Rule('inboundFrom', (v) => text(v, { pattern: PHONE_NUMBER, rule: 'must be a phone number with country code (6 to 15 digits)' }))
  from!: string;

  @ApiPropertyOptional({ description: "The customer's profile name (contacts[0].profile.name).", example: 'Ana' })
  @IsOptional()
  @Rule('inboundProfileName', (v) => text(v, { max: 256 }))
  profile_name?: string;

  @ApiPropertyOptional({
    description: 'The message id; the same id twice is taken once (as a repeated notification). Made when left out.',
    example: 'wamid.CUSTOMER.1',
  })
  @IsOptional()
  @Rule('inboundId', (v) => text(v, { pattern: MESSAGE_ID, rule: 'must be 1 to 255 printable ASCII characters' }))
  id?: string;

  @ApiProperty({ enum: INBOUND_TYPES, example: 'text' })
  @Rule('inboundType', (v) => (v === undefined ? 'is required' : oneOf(v, INBOUND_TYPES)))
  type!: InboundType;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'A reply: `{id}` of the message replied to (and `from`).' })
  @IsOptional()
  @Rule('inboundContext', object)
  context?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', properties: { body: { type: 'string', maxLength: 4096 } }, required: ['body'], description: 'With type text.' })
  @content('text', (v) => shape(v, InboundText))
  text?: InboundText;

  @ApiPropertyOptional(contentDocs('image', ': `id` of a media the account uploaded, `caption`'))
  @content('image', media)
  image?: InboundMedia;

  @ApiPropertyOptional(contentDocs('audio', ': `id` of a media the account uploaded'))
  @content('audio', media)
  audio?: InboundMedia;

  @ApiPropertyOptional(contentDocs('video', ': `id` of a media the account uploaded, `caption`'))
  @content('video', media)
  video?: InboundMedia;

  @ApiPropertyOptional(contentDocs('document', ': `id` of a media the account uploaded, `caption`, `filename`'))
  @content('document', media)
  document?: InboundMedia;

  @ApiPropertyOptional(contentDocs('sticker', ': `id` of a media the account uploaded'))
  @content('sticker', media)
  sticker?: InboundMedia;

  @ApiPropertyOptional(contentDocs('location', ' (`latitude`, `longitude`, `name`, `address`)'))
  @content('location', object)
  location?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: "With type contacts: the network's contacts array.",
  })
  @content('contacts', (v) => (Array.isArray(v) && v.length > 0 && v.every((c) => object(c) === null) ? null : 'must be a non-empty array of objects'))
  contacts?: Record<string, unknown>[];

  @ApiPropertyOptional(contentDocs('interactive', ' (`type` button_reply or list_reply and its object)'))
  @content('interactive', object)
  interactive?: Record<string, unknown>;

  @ApiPropertyOptional(contentDocs('button', ' (a quick-reply button: `text`, `payload`)'))
  @content('button', object)
  button?: Record<string, unknown>;

  @ApiPropertyOptional(contentDocs('reaction', ' (`message_id`, `emoji`)'))
  @content('reaction', object)
  reaction?: Record<string, unknown>;

  @ApiPropertyOptional(contentDocs('order', ' (`catalog_id`, `product_items`, `text`)'))
  @content('order', object)
  order?: Record<string, unknown>;
}
