import { ApiProperty, type SchemaObject } from '@nestjs/swagger';
import { KeepRaw } from '@app/errors';
import { IsArray } from 'class-validator';

/** One push, as the spec's Push item table has it; without dt_envio and hr_envio it is due now. */
const PUSH_ITEM: SchemaObject = {
  type: 'object',
  required: ['nm_push', 'nm_mensagem', 'nm_plataforma'],
  properties: {
    nm_envio: { type: 'string', maxLength: 255, description: 'Name of the sending, for your own reference.' },
    nm_push: { type: 'string', maxLength: 1024, description: "The recipient device's push token." },
    nm_titulo: { type: 'string', maxLength: 4096, description: 'Title; {{variable}} is filled in from campos/valor or valor_json.' },
    nm_mensagem: { type: 'string', maxLength: 4096, description: 'Text; {{variable}} is filled in like the title.' },
    url_scheme: { type: 'string', maxLength: 2048, description: 'Opened when the push is tapped.' },
    dt_envio: { type: 'string', format: 'date', description: 'Send date YYYY-MM-DD (with hr_envio, in PUSH_TIMEZONE).' },
    hr_envio: { type: 'string', pattern: '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$', description: 'Send time HH:MM:SS.' },
    campos: { type: 'string', description: 'Comma-separated variable names.' },
    valor: { type: 'string', description: 'Comma-separated values, in the order of campos.' },
    valor_json: { type: 'string', description: 'A JSON object of variable values, instead of campos and valor.' },
    nm_plataforma: { type: 'string', enum: ['android', 'ios', 'Android', 'iOS'] },
  },
};

/**
 * The body of POST /api/pushm/bulk. Items are checked one by one by `checkPushItem`
 * (a bad item is refused on its own), so they pass through here untouched.
 */
export class BulkPushDto {
  @ApiProperty({
    description: 'Push items, checked one by one: a bad item is refused on its own, the others are scheduled.',
    type: 'array',
    items: PUSH_ITEM,
    example: [{ nm_envio: 'promo', nm_push: 'device-token-1', nm_titulo: 'Oi {{nome}}', nm_mensagem: 'Seu cupom: {{cupom}}', url_scheme: 'app://promo', campos: 'nome,cupom', valor: 'Ana,X10', nm_plataforma: 'android' }],
  })
  @KeepRaw() @IsArray()
  pushs!: unknown[];
}

/** Answer to POST: `items` holds one entry per request item, in order. */
export interface BulkPushResult {
  batch_id: string;
  accepted: number;
  rejected: number;
  items: Array<{ index: number; id: string; status: string; due_at: string } | { index: number; errors: Record<string, string[]> }>;
}

/** What one valid item would send: the text after its variables are filled in, to which device, when. */
export interface PushPreview {
  index: number;
  platform: string;
  nm_push: string;
  title: string;
  body: string;
  url_scheme: string | null;
  due_at: string;
}

/** Answer to POST with `?dry_run=true`: the same checks, nothing stored or sent. */
export interface BulkPushPreview {
  dry_run: true;
  accepted: number;
  rejected: number;
  items: Array<PushPreview | { index: number; errors: Record<string, string[]> }>;
}
