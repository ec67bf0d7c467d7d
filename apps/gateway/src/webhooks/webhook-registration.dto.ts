import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { list, oneOf, partRefusal, Rule, RULE_SETTINGS, text, type Refusal } from '../common/rule.decorator';

export const WEBHOOK_LIMITS = { phone: 32, endpoint: 2000, headers: 20, headerValue: 1024 } as const;
/** The spec shows one value, spelled so. */
export const META_VERSION = 'LASTEST';
/** Headers the gateway sets itself on every delivery; a webhook may not override them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'user-agent',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const PHONE = /^\+?\d{6,20}$/;
const HTTPS = /^https:\/\/[^\s]+$/i;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function types(value: unknown): Refusal {
  const refusal = list(value, 1, RULE_SETTINGS.webhookTypes.length, (t) => oneOf(t, RULE_SETTINGS.webhookTypes));
  if (refusal !== null) return refusal;
  return new Set(value as string[]).size === (value as string[]).length ? null : 'must not repeat a type';
}

function headers(value: unknown): Refusal {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object of header names to values';
  const entries = Object.entries(value);
  if (entries.length > WEBHOOK_LIMITS.headers) return `may hold at most ${WEBHOOK_LIMITS.headers} headers`;
  for (const [name, headerValue] of entries) {
    if (!TOKEN.test(name)) return partRefusal(name, 'is not a valid header name');
    if (RESERVED_HEADERS.has(name.toLowerCase()) || name.toLowerCase().startsWith('webhook-'))
      return partRefusal(name, 'is set by the gateway and cannot be overridden');
    const refusal = text(headerValue, {
      min: 0,
      max: WEBHOOK_LIMITS.headerValue,
      pattern: HEADER_VALUE,
      rule: 'must be a header value without control characters',
    });
    if (refusal !== null) return partRefusal(name, refusal);
  }
  return null;
}

const endpoint = (v: unknown) =>
  text(v, { max: WEBHOOK_LIMITS.endpoint, pattern: HTTPS, rule: 'must be an https URL (the receiver needs a valid TLS certificate)' });

/** The body of POST api/Webhooks: `types` and `endpoint` required. */
export class CreateWebhookBody {
  @ApiPropertyOptional({
    description: "The business phone number (digits); it must be the target phone's.",
    pattern: PHONE.source,
    maxLength: WEBHOOK_LIMITS.phone,
  })
  @IsOptional()
  @Rule('phone', (v) => text(v, { max: WEBHOOK_LIMITS.phone, pattern: PHONE, rule: 'must be the business phone number in digits' }))
  phone?: string;

  @ApiProperty({ type: [String], minItems: 1, uniqueItems: true, example: ['messages'], description: 'Event types, from WEBHOOK_TYPES (default: messages).' })
  @Rule('types', types)
  types!: string[];

  @ApiProperty({
    format: 'uri',
    maxLength: WEBHOOK_LIMITS.endpoint,
    description: 'An https URL whose certificate the gateway trusts.',
    example: 'https://hooks.example.com/gateway',
  })
  @Rule('endpoint', endpoint)
  endpoint!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: WEBHOOK_LIMITS.headerValue },
    maxProperties: WEBHOOK_LIMITS.headers,
    description: 'Extra headers sent with every delivery.',
    example: { 'X-Source': 'gateway' },
  })
  @IsOptional()
  @Rule('headers', headers)
  headers?: Record<string, string>;
}

/** The body of PUT api/Webhooks/{id}: what is given changes (null keeps a field too). */
export class UpdateWebhookBody extends PartialType(CreateWebhookBody) {
  @ApiPropertyOptional({ enum: [META_VERSION] })
  @IsOptional()
  @Rule('metaVersion', (v) => oneOf(v, [META_VERSION]))
  meta_version?: string;
}
