import { ApiProperty, ApiPropertyOptional, type SchemaObject } from '@nestjs/swagger';
import { KeepRaw } from '@app/errors';
import { IsArray, IsIn, IsOptional } from 'class-validator';

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
  nm_push: { maxLength: 1024, required: true, schema: { type: 'string', description: "The recipient device's push token." } },
  nm_titulo: { maxLength: 4096, schema: { type: 'string', description: 'Title; {{variable}} is filled in from campos/valor or valor_json.' } },
  nm_mensagem: { maxLength: 4096, required: true, schema: { type: 'string', description: 'Text; {{variable}} is filled in like the title.' } },
  url_scheme: { maxLength: 2048, schema: { type: 'string', description: 'Opened when the push is tapped.' } },
  dt_envio: { maxLength: 10, schema: { type: 'string', format: 'date', description: 'Send date YYYY-MM-DD (with hr_envio, in PUSH_TIMEZONE).' } },
  hr_envio: { maxLength: 8, schema: { type: 'string', pattern: '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$', description: 'Send time HH:MM:SS.' } },
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
    schema: { type: 'string', enum: ['android', 'ios', 'Android', 'iOS'], description: 'iOS or Android, any case.' },
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
    example: [
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
    ],
  })
  @KeepRaw()
  @IsArray()
  pushs!: unknown[];
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
