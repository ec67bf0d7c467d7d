/** The value a secret field is recorded as. */
export const MASK = '***';

/**
 * Field names whose values are never recorded: anything named like a secret, token, key, password or
 * authorization, at any depth. Identifiers (`token_id`, `apiKeyId`) and counts/lists of names are not secrets.
 */
const SECRET_NAME = /secret|token|key|password|passwd|authorization|credential|cookie/i;
const IDENTIFIER = /(_id|_ids|Id|Ids|_count|_prefix)$/;

export const isSecretField = (name: string): boolean => SECRET_NAME.test(name) && !IDENTIFIER.test(name);

/** A JSON-safe copy of `value` with every secret field's value replaced by MASK (null and absent stay as they are). */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value.toISOString();
  const masked: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value as Record<string, unknown>)) {
    if (field === undefined) continue;
    masked[name] = isSecretField(name) && field !== null ? MASK : maskSecrets(field);
  }
  return masked;
}

export type Fields = Record<string, unknown>;

/**
 * The fields that differ between `before` and `after` (a creation has no before, a deletion no after), each side
 * masked. A secret field that changed shows as `***` on both sides: the record says it changed, never to what.
 */
export function changedFields(before: Fields | null, after: Fields | null): { before: Fields | null; after: Fields | null } {
  if (!before || !after) return { before: before && (maskSecrets(before) as Fields), after: after && (maskSecrets(after) as Fields) };
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  const was: Fields = {};
  const now: Fields = {};
  for (const name of names) {
    if (before[name] === undefined && after[name] === undefined) continue;
    if (JSON.stringify(before[name]) === JSON.stringify(after[name])) continue;
    was[name] = before[name] ?? null;
    now[name] = after[name] ?? null;
  }
  return { before: maskSecrets(was) as Fields, after: maskSecrets(now) as Fields };
}
