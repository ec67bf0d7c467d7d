import { ApiProperty } from '@nestjs/swagger';
import { KeepRaw } from '@app/errors';
import { IsArray } from 'class-validator';

/**
 * The body of POST /api/pushm/bulk. Items are checked one by one by `checkPushItem`
 * (a bad item is refused on its own), so they pass through here untouched.
 */
export class BulkPushDto {
  @ApiProperty({
    description: 'Push items: nm_envio, nm_push, nm_titulo, nm_mensagem, url_scheme, dt_envio, hr_envio, campos, valor, valor_json, nm_plataforma.',
    type: 'array',
    items: { type: 'object' },
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
