import { createHash } from 'node:crypto';
import type { StatusChange, StatusConversation, StatusPricing } from '../network/network-events';
import { InvalidParameterException } from '../errors/network-error.exception';

/** One usable change of a signed notification, every field checked. */
export type InboundChange =
  | { kind: 'statuses'; path: string; phoneId: string; statuses: (StatusChange & { path: string })[] }
  | { kind: 'messages'; path: string; phoneId: string; value: Record<string, unknown> & { messages: { id: string }[] } }
  | { kind: 'template'; path: string; wabaId: string; templateId: string; event: string; reason: string | null }
  | { kind: 'other'; path: string; phoneId: string; field: string; value: Record<string, unknown>; dedupKey: string };

/** A part of the notification left out, and why (for the log: the path, never the value). */
export interface SkippedPart {
  path: string;
  reason: string;
}

export interface CheckedNotification {
  changes: InboundChange[];
  skipped: SkippedPart[];
}

export const MESSAGES_FIELD = 'messages';
export const TEMPLATE_STATUS_FIELD = 'message_template_status_update';

/** The network's ids: message ids (`wamid.…`), phone-number, business-account and template ids. */
const MESSAGE_ID = /^[\x21-\x7e]{1,255}$/;
const NETWORK_ID = /^[\w.-]{1,64}$/;
const FIELD = /^[a-z_]{1,48}$/;
const STATUS = /^[a-z_]{1,16}$/;
const EVENT = /^[A-Z_]{1,32}$/;
/** A pricing category, type or conversation origin (`marketing`, `free_customer_service`), and a pricing model (`PMP`, `CBP`). */
const TOKEN = /^[a-z_]{1,32}$/;
const TOKEN_CASED = /^[A-Za-z_]{1,16}$/;
/** 9999-12-31T23:59:59Z, the last second PostgreSQL's timestamptz and JavaScript's Date both hold. */
const LAST_SECOND = 253_402_300_799;
/** Entries, changes, statuses and messages taken from one notification; the network sends a handful, the body limit allows thousands. */
export const MAX_ITEMS = 1000;
/** Deeper values are not the network's and are not forwarded. */
const MAX_DEPTH = 16;
const MAX_ERRORS = 10;
/** A NUL, or half of a surrogate pair: PostgreSQL stores neither in text or jsonb. */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

class Skip extends Error {}

/**
 * Checks a signed notification body (`{object, entry: [{id, changes: [{field, value}]}]}`) entry
 * by entry. A body that is not a notification at all is a 400; a malformed entry, change, status
 * or message is left out and named in `skipped`, so the rest is still taken and the network,
 * which resends a whole body on 5xx, gets its 200.
 */
export function checkInboundNotification(body: unknown): CheckedNotification {
  if (!isObject(body)) throw new InvalidParameterException('body', 'must be a JSON object');
  if (!Array.isArray(body.entry)) throw new InvalidParameterException('entry', 'must be an array');
  const out: CheckedNotification = { changes: [], skipped: [] };
  let budget = MAX_ITEMS;
  let over = 0;
  const take = (): boolean => {
    if (budget > 0) return --budget >= 0;
    over++;
    return false;
  };
  body.entry.forEach((entry: unknown, e: number) => {
    if (!take()) return;
    const path = `entry[${e}]`;
    if (!isObject(entry) || !Array.isArray(entry.changes)) return out.skipped.push({ path, reason: 'must be an object with a changes array' });
    entry.changes.forEach((change: unknown, c: number) => {
      const where = `${path}.changes[${c}]`;
      if (!take()) return;
      try {
        checkChange(entry.id, change, where, out, take);
      } catch (error) {
        if (!(error instanceof Skip)) throw error;
        out.skipped.push({ path: where, reason: error.message });
      }
    });
  });
  if (over > 0) out.skipped.push({ path: 'entry', reason: `${over} more items past the first ${MAX_ITEMS} of one notification` });
  return out;
}

function checkChange(entryId: unknown, change: unknown, path: string, out: CheckedNotification, take: () => boolean): void {
  if (!isObject(change)) throw new Skip('must be an object');
  const { field, value } = change;
  if (typeof field !== 'string' || !FIELD.test(field)) throw new Skip('field must be a notification type');
  if (!isObject(value)) throw new Skip('value must be an object');
  if (field === TEMPLATE_STATUS_FIELD) {
    out.changes.push({ kind: 'template', path, ...templateChange(entryId, value) });
    return;
  }
  const phoneId = id(isObject(value.metadata) ? value.metadata.phone_number_id : undefined, NETWORK_ID, 'metadata.phone_number_id must be a phone-number id');
  if (field !== MESSAGES_FIELD) {
    if (!storable(value)) throw new Skip('value holds text that cannot be stored (NUL, a lone surrogate) or nests too deep');
    const dedupKey = `${field}:${createHash('sha256').update(JSON.stringify(value)).digest('hex')}`;
    out.changes.push({ kind: 'other', path, phoneId, field, value, dedupKey });
    return;
  }
  const { statuses, messages, ...rest } = value;
  const checked: (StatusChange & { path: string })[] = [];
  each(statuses, `${path}.value.statuses`, out, take, (status, where) => checked.push({ path: where, ...statusChange(status) }));
  if (checked.length > 0) out.changes.push({ kind: 'statuses', path, phoneId, statuses: checked });
  const taken: { id: string }[] = [];
  each(messages, `${path}.value.messages`, out, take, (message) => {
    if (!isObject(message)) throw new Skip('must be an object');
    id(message.id, MESSAGE_ID, 'id must be a message id');
    if (!storable(message)) throw new Skip('holds text that cannot be stored (NUL, a lone surrogate) or nests too deep');
    taken.push(message as { id: string });
  });
  if (taken.length === 0) return;
  if (!storable(rest)) throw new Skip('value holds text that cannot be stored (NUL, a lone surrogate) or nests too deep');
  out.changes.push({ kind: 'messages', path, phoneId, value: { ...rest, messages: taken } });
}

/** Calls `check` on each item of an optional array; a throwing item is skipped and named. */
function each(list: unknown, path: string, out: CheckedNotification, take: () => boolean, check: (item: unknown, path: string) => void): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) throw new Skip(`${path.slice(path.lastIndexOf('.') + 1)} must be an array`);
  list.forEach((item, i) => {
    if (!take()) return;
    const where = `${path}[${i}]`;
    try {
      check(item, where);
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      out.skipped.push({ path: where, reason: error.message });
    }
  });
}

function statusChange(status: unknown): StatusChange {
  if (!isObject(status)) throw new Skip('must be an object');
  const messageId = id(status.id, MESSAGE_ID, 'id must be a message id');
  if (typeof status.status !== 'string' || !STATUS.test(status.status)) throw new Skip('status must be a status name');
  const errors = status.errors;
  if (errors !== undefined && (!Array.isArray(errors) || errors.length > MAX_ERRORS || !storable(errors))) {
    throw new Skip(`errors must be an array of at most ${MAX_ERRORS} storable objects`);
  }
  const pricing = pricingOf(status.pricing);
  const conversation = conversationOf(status.conversation);
  return {
    messageId,
    status: status.status,
    timestamp: secondsOf(status.timestamp),
    ...(pricing ? { pricing } : {}),
    ...(conversation ? { conversation } : {}),
    ...(errors ? { errors } : {}),
  };
}

/**
 * A status's `pricing`, its known fields only; null when absent or not of the network's shape (the status is still taken).
 * `billable`, which newer Graph API versions leave out, is then whether the `type` is `regular`.
 */
function pricingOf(value: unknown): StatusPricing | null {
  if (!isObject(value)) return null;
  const { billable, pricing_model: model, category, type } = value;
  if (typeof category !== 'string' || !TOKEN.test(category) || typeof model !== 'string' || !TOKEN_CASED.test(model)) return null;
  if (billable !== undefined && typeof billable !== 'boolean') return null;
  if (type !== undefined && (typeof type !== 'string' || !TOKEN.test(type))) return null;
  return { billable: billable ?? type === 'regular', pricing_model: model, category, ...(type !== undefined ? { type } : {}) };
}

/** A status's `conversation`, its known fields only; null when absent or not of the network's shape. */
function conversationOf(value: unknown): StatusConversation | null {
  if (!isObject(value) || typeof value.id !== 'string' || !NETWORK_ID.test(value.id)) return null;
  const expires = value.expiration_timestamp;
  const origin = isObject(value.origin) && typeof value.origin.type === 'string' && TOKEN.test(value.origin.type) ? { type: value.origin.type } : undefined;
  return {
    id: value.id,
    ...((typeof expires === 'string' && /^\d{1,11}$/.test(expires)) || (typeof expires === 'number' && Number.isSafeInteger(expires) && expires >= 0)
      ? { expiration_timestamp: String(expires) }
      : {}),
    ...(origin ? { origin } : {}),
  };
}

function templateChange(entryId: unknown, value: Record<string, unknown>): { wabaId: string; templateId: string; event: string; reason: string | null } {
  const wabaId = id(typeof entryId === 'number' ? String(entryId) : entryId, NETWORK_ID, 'the entry id must be the business account id');
  const raw = value.message_template_id;
  const templateId = id(typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw, NETWORK_ID, 'message_template_id must be a template id');
  if (typeof value.event !== 'string' || !EVENT.test(value.event)) throw new Skip('event must be a review event');
  const reason = value.reason;
  if (reason !== undefined && reason !== null && (typeof reason !== 'string' || !storable(reason))) throw new Skip('reason must be text');
  return { wabaId, templateId, event: value.event.slice(0, 16), reason: typeof reason === 'string' && reason !== 'NONE' ? reason.slice(0, 64) : null };
}

function id(value: unknown, pattern: RegExp, rule: string): string {
  if (typeof value !== 'string' || !pattern.test(value)) throw new Skip(rule);
  return value;
}

/** The network's Unix-seconds timestamp (a string or a number); when it holds none the gateway can store, the time it arrived. */
function secondsOf(timestamp: unknown): number {
  const seconds = typeof timestamp === 'string' || typeof timestamp === 'number' ? Number(timestamp) : NaN;
  return Number.isFinite(seconds) && seconds > 0 && seconds <= LAST_SECOND ? Math.floor(seconds) : Math.floor(Date.now() / 1000);
}

/** JSON the database can hold: no NUL or lone surrogate in any key or string, at most MAX_DEPTH levels. */
export function storable(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return !UNSTORABLE.test(value);
  if (value === null || typeof value !== 'object') return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.every((v) => storable(v, depth + 1));
  return Object.entries(value).every(([k, v]) => !UNSTORABLE.test(k) && storable(v, depth + 1));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
