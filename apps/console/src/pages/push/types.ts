import type { components } from '../../api/generated/ingest-push';

type PushItem = components['schemas']['BulkPushDto']['pushs'][number];
export type Platform = PushItem['nm_plataforma'];

/** One push item per device token, the schedule (date and time, UTC) applied to all. */
export function pushItems(input: { tokens: string; platform: Platform; title: string; message: string; date: string; time: string }): PushItem[] {
  return input.tokens
    .split(/\s+/)
    .filter(Boolean)
    .map((token) => ({
      nm_push: token,
      nm_plataforma: input.platform,
      ...(input.title ? { nm_titulo: input.title } : {}),
      nm_mensagem: input.message,
      ...(input.date ? { dt_envio: input.date, hr_envio: `${input.time || '00:00'}:00`.slice(0, 8) } : {}),
    }));
}
