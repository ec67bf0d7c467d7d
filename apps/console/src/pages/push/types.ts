export interface BatchSummary {
  batch_id: string;
  created_at: string;
  cancelled_at: string | null;
  accepted: number;
  rejected: number;
  counts: Record<string, number>;
}

export const BULK = '/api/pushm/bulk';
export const batchPath = (id: string) => `${BULK}/${encodeURIComponent(id)}`;

export function countsText(counts: Record<string, number>): string {
  const parts = Object.entries(counts).filter(([, n]) => n > 0);
  return parts.length ? parts.map(([k, n]) => `${k} ${n}`).join(', ') : 'none';
}

/** One push item per device token, the schedule (date and time, UTC) applied to all. */
export function pushItems(input: { tokens: string; platform: string; title: string; message: string; date: string; time: string }) {
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
