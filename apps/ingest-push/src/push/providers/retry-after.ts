/** Retry-After as seconds (delta-seconds or an HTTP date), capped at one day; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  const seconds = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : (Date.parse(raw) - now) / 1000;
  if (!Number.isFinite(seconds)) return null;
  return Math.min(Math.max(0, seconds), 86_400);
}
