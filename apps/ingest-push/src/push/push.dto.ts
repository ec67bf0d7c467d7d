import { ApiProperty, ApiPropertyOptional, type SchemaObject } from '@nestjs/swagger';
import { KeepRaw } from '@app/errors';
import { IsArray, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

/** The rules of one field of a push item: its schema in /docs-json, and what `checkPushItem` holds it to. */
interface PushItemField {
  /** Longest value, in characters (the 4 KB payload limit is checked after the variables are filled in). */
  maxLength: number;
  required?: true;
  schema: SchemaObject;
}

/** One push, as the spec's Push item table has it; without dt_envio and hr_envio it is due now. */
export const PUSH_ITEM_FIELDS = {
  nm_envio: { maxLength: 255, schema: { type: 'string', description: 'Name of the sending, for your own reference.' } },
  nm_push: {
    maxLength: 1024,
    required: true,
    schema: { type: 'string', description: "The recipient device's push token; for Web, the browser's PushSubscription as JSON (endpoint and keys)." },
  },
  nm_titulo: { maxLength: 4096, schema: { type: 'string', description: 'Title; {{variable}} is filled in from campos/valor or valor_json.' } },
  nm_mensagem: { maxLength: 4096, required: true, schema: { type: 'string', description: 'Text; {{variable}} is filled in like the title.' } },
  url_scheme: { maxLength: 2048, schema: { type: 'string', description: 'Opened when the push is tapped.' } },
  dt_envio: {
    maxLength: 10,
    schema: { type: 'string', format: 'date', description: "Send date YYYY-MM-DD (with hr_envio, in the item's timezone, else PUSH_TIMEZONE)." },
  },
  hr_envio: { maxLength: 8, schema: { type: 'string', pattern: '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$', description: 'Send time HH:MM:SS.' } },
  timezone: {
    maxLength: 64,
    schema: {
      type: 'string',
      example: 'America/Sao_Paulo',
      description: 'IANA time zone of this device: dt_envio/hr_envio (or the batch hr_envio with delivery "local") and quiet hours are read in it.',
    },
  },
  campos: { maxLength: 8192, schema: { type: 'string', description: 'Comma-separated variable names.' } },
  valor: { maxLength: 8192, schema: { type: 'string', description: 'Comma-separated values, in the order of campos.' } },
  valor_json: {
    maxLength: 8192,
    schema: {
      oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } }],
      description: 'A JSON object of variable values (or that object as a JSON string), instead of campos and valor.',
    },
  },
  nm_plataforma: {
    maxLength: 16,
    required: true,
    schema: { type: 'string', enum: ['android', 'ios', 'web', 'Android', 'iOS', 'Web'], description: 'iOS, Android or Web, any case.' },
  },
} as const satisfies Record<string, PushItemField>;

export type PushItemFieldName = keyof typeof PUSH_ITEM_FIELDS;

/** Most variables one push may fill in. */
export const MAX_VARIABLES = 100;

const PUSH_ITEM: SchemaObject = {
  type: 'object',
  required: Object.entries(PUSH_ITEM_FIELDS)
    .filter(([, f]) => 'required' in f)
    .map(([name]) => name),
  properties: Object.fromEntries(
    Object.entries(PUSH_ITEM_FIELDS).map(([name, f]: [string, PushItemField]) => [
      name,
      f.schema.type === 'string' ? { ...f.schema, maxLength: f.maxLength } : f.schema,
    ]),
  ),
  additionalProperties: false,
};

export const DELIVERIES = ['fixed', 'local'] as const;
export type Delivery = (typeof DELIVERIES)[number];
export const QUIET_HOURS_RULES = ['hold', 'drop'] as const;
export type QuietHoursRule = (typeof QUIET_HOURS_RULES)[number];
/** The highest throttle a batch may ask for (a million sends a minute is no limit in practice). */
export const MAX_THROTTLE_PER_MINUTE = 1_000_000;

const EXAMPLE_ITEMS = [
  {
    nm_envio: 'promo',
    nm_push: 'device-token-1',
    nm_titulo: 'Oi {{nome}}',
    nm_mensagem: 'Seu cupom: {{cupom}}',
    url_scheme: 'app://promo',
    campos: 'nome,cupom',
    valor: 'Ana,X10',
    nm_plataforma: 'android',
  },
];

/** Whole bodies of POST /api/pushm/bulk for the OpenAPI (the /docs page sends the first as it is). */
export const BULK_PUSH_EXAMPLES = {
  now: { summary: 'One push, now', value: { pushs: EXAMPLE_ITEMS } },
  local: {
    summary: "At 09:00 on each device's clock, at most 6,000 a minute",
    value: { delivery: 'local', hr_envio: '09:00:00', throttle_per_minute: 6000, pushs: [{ ...EXAMPLE_ITEMS[0], timezone: 'America/Sao_Paulo' }] },
  },
};

/**
 * The body of POST /api/pushm/bulk. Items are checked one by one by `checkPushItem` against
 * PUSH_ITEM_FIELDS: a bad item is an entry of the answer, not a refusal of the request, so the
 * items pass through the validation pipe untouched.
 */
export class BulkPushDto {
  @ApiProperty({
    description: 'Push items, checked one by one: a bad item is refused on its own, the others are scheduled.',
    type: 'array',
    items: PUSH_ITEM,
    example: EXAMPLE_ITEMS,
  })
  @KeepRaw()
  @IsArray()
  pushs!: unknown[];

  @ApiPropertyOptional({
    enum: DELIVERIES,
    description:
      'fixed (the default): each item is due at its own dt_envio/hr_envio (or now). local: every item at the batch hr_envio on the wall clock of its own timezone.',
  })
  @IsOptional()
  @IsIn(DELIVERIES, { message: 'delivery must be fixed or local.' })
  delivery?: Delivery;

  @ApiPropertyOptional({
    pattern: '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$',
    example: '09:00:00',
    description: 'With delivery "local" (required there): the local time HH:MM:SS each item is due at in its timezone.',
  })
  @IsOptional()
  @IsString()
  @Matches(/^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$/, { message: 'hr_envio must be a time HH:MM:SS (00:00:00 to 23:59:59).' })
  hr_envio?: string;

  @ApiPropertyOptional({
    format: 'date',
    description: 'With delivery "local": the local date; without it, the next time each zone\'s clock shows hr_envio (within 24 hours).',
  })
  @IsOptional()
  @IsString()
  dt_envio?: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_THROTTLE_PER_MINUTE,
    description: 'Most sends of this batch in any 60 seconds, across every worker (spread evenly); default PUSH_DEFAULT_THROTTLE_PER_MINUTE.',
  })
  @IsOptional()
  @IsInt({ message: 'throttle_per_minute must be a whole number.' })
  @Min(1)
  @Max(MAX_THROTTLE_PER_MINUTE)
  throttle_per_minute?: number;

  @ApiPropertyOptional({
    enum: QUIET_HOURS_RULES,
    description: "A push due inside the account's quiet hours: hold (the default: sent when they end) or drop (status quiet, not sent).",
  })
  @IsOptional()
  @IsIn(QUIET_HOURS_RULES, { message: 'quiet_hours must be hold or drop.' })
  quiet_hours?: QuietHoursRule;
}

/** POST /api/pushm/bulk's query: `dry_run=true` checks and shows, storing and sending nothing. */
export class BulkPushQueryDto {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'true: check and show the filled-in title and body of each item; store and send nothing (200).',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'dry_run must be true or false.' })
  dry_run?: 'true' | 'false';
}
