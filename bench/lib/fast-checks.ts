/**
 * The cheap "happy path" checks proposed for the docstore's DTOs (see bench/README.md,
 * "Proposed changes"): each accepts only values the DTO's class-validator rules accept
 * (stricter is fine: a value it rejects falls back to the full ValidationPipe, which then
 * reports the errors exactly as today). bench/micro.ts measures them against the pipe.
 */

/** Same as PATH_SEGMENT in apps/docstore/src/documents/document-path.dto.ts. */
const PATH_SEGMENT = /^[^/\u0000-\u001f\u007f]+$/;
const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;
const BULK_HARD_LIMIT = 10_000;
/** class-validator's isISO8601 with strict: true, as the DTOs use it. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { isISO8601 } = require('class-validator') as { isISO8601: (v: unknown, o?: object) => boolean };

type Plain = Record<string, unknown>;

const isRecord = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);
const segment = (v: unknown): boolean => typeof v === 'string' && v.length > 0 && v.length <= 255 && PATH_SEGMENT.test(v);

/**
 * Only allowed keys (whitelist + forbidNonWhitelisted; a key named like an Object.prototype
 * member is not allowed either) and every required one. `data` itself is not walked: it is
 * @KeepRaw, passed through untouched by the pipe as well.
 */
function onlyKeys(o: Plain, allowed: readonly string[], required: readonly string[]): boolean {
  let n = 0;
  for (const k in o) {
    if (!allowed.includes(k)) return false;
    n++;
  }
  for (const k of required) if (!(k in o)) return false;
  return n >= required.length;
}

const SCOPE_KEYS = ['client', 'environment', 'context', 'type'] as const;
const DOC_KEYS = [...SCOPE_KEYS, 'key'] as const;

export function scopePathOk(p: unknown): boolean {
  return isRecord(p) && onlyKeys(p, SCOPE_KEYS, SCOPE_KEYS) && typeof p.client === 'string' && segment(p.environment) && segment(p.context) && segment(p.type);
}

export function documentPathOk(p: unknown): boolean {
  return isRecord(p) && onlyKeys(p, DOC_KEYS, DOC_KEYS) && typeof p.client === 'string' && segment(p.environment) && segment(p.context) && segment(p.type) && segment(p.key);
}

function expiryOk(o: Plain): boolean {
  const ttl = o.ttl;
  if (ttl !== undefined && !(typeof ttl === 'number' && Number.isInteger(ttl) && ttl >= 1 && ttl <= MAX_TTL_SECONDS)) return false;
  const at = o.expires_at;
  return at === undefined || at === null || (typeof at === 'string' && isISO8601(at, { strict: true }));
}

const BODY_KEYS = ['environment', 'context', 'type', 'key', 'data', 'ttl', 'expires_at'] as const;
const nonEmptyString = (v: unknown) => typeof v === 'string' && v.length > 0;

export function documentBodyOk(b: unknown): boolean {
  return (
    isRecord(b) &&
    onlyKeys(b, BODY_KEYS, ['environment', 'context', 'type', 'key', 'data']) &&
    nonEmptyString(b.environment) &&
    nonEmptyString(b.context) &&
    nonEmptyString(b.type) &&
    nonEmptyString(b.key) &&
    isRecord(b.data) &&
    expiryOk(b)
  );
}

const ITEM_KEYS = ['key', 'data', 'ttl', 'expires_at'] as const;

export function bulkBodyOk(b: unknown): boolean {
  if (!isRecord(b) || !onlyKeys(b, ['documents'], ['documents'])) return false;
  const docs = b.documents;
  if (!Array.isArray(docs) || docs.length < 1 || docs.length > BULK_HARD_LIMIT) return false;
  for (const item of docs) {
    if (!isRecord(item) || !onlyKeys(item, ITEM_KEYS, ['key', 'data']) || !segment(item.key) || !isRecord(item.data) || !expiryOk(item)) {
      return false;
    }
  }
  return true;
}
