import type { FieldErrors } from '@app/errors';
import { dueInstant, isRealDate, isTimeZone, isWallTime, localInstant, SCHEDULE_HORIZON_DAYS } from './push-due-time';
import { MAX_PAYLOAD_BYTES, payloadBytes, type Platform, type PushContent } from './push-payload';
import { fillTemplate, VARIABLE_NAME } from './push-template';
import { parseSubscription } from './providers/web-push.provider';
import { MAX_VARIABLES, PUSH_ITEM_FIELDS, type PushItemFieldName } from './push.dto';

/** An accepted item, ready to be stored. */
export interface ValidPush extends PushContent {
  name: string | null;
  device: string;
  platform: Platform;
  dueAt: Date;
  /** The zone its time was read in (its `timezone`, else PUSH_TIMEZONE): quiet hours are read in it too. */
  timeZone: string;
}

/** A batch with `delivery: "local"`: one wall time (and optional date) read in each item's `timezone`. */
export interface LocalDelivery {
  date: string | null;
  time: string;
  /** Due instants already computed for this request, by zone (most items of a batch share a few zones). */
  dueByZone?: Map<string, number>;
}

export type ItemCheck = { ok: true; push: ValidPush } | { ok: false; errors: FieldErrors };

const FIELDS = new Set<string>(Object.keys(PUSH_ITEM_FIELDS));

/**
 * Checks one element of `pushs` and fills in its variables. Every problem is reported
 * under its field name; an item with any problem is refused on its own.
 */
export function checkPushItem(raw: unknown, defaultZone: string, local?: LocalDelivery): ItemCheck {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, errors: { item: ['Each push must be an object.'] } };
  const item = raw as Record<string, unknown>;
  // No prototype: an unknown field may be named like one of Object's members (`valueOf`).
  const errors: FieldErrors = Object.create(null) as FieldErrors;
  const fail = (field: string, message: string): void => {
    (errors[field] ??= []).push(message);
  };
  for (const key of Object.keys(item)) if (!FIELDS.has(key)) fail(key, `property ${key} should not exist`);

  const text = (field: PushItemFieldName): string | null => {
    const value = item[field];
    const rule: { maxLength: number; required?: true } = PUSH_ITEM_FIELDS[field];
    if (value === undefined || value === null) {
      if (rule.required) fail(field, `${field} is required.`);
      return null;
    }
    if (typeof value !== 'string') return (fail(field, `${field} must be a string.`), null);
    if (value.length > rule.maxLength) return (fail(field, `${field} must be at most ${rule.maxLength} characters.`), null);
    return value;
  };

  const name = text('nm_envio');
  const device = text('nm_push');
  if (device !== null && device.trim() === '') fail('nm_push', 'nm_push must not be empty.');
  const title = text('nm_titulo') ?? '';
  const message = text('nm_mensagem');
  if (message !== null && message.trim() === '') fail('nm_mensagem', 'nm_mensagem must not be empty.');
  const urlScheme = text('url_scheme');

  const platformText = text('nm_plataforma');
  const platform = platformText === null ? null : toPlatform(platformText);
  if (platformText !== null && platform === null) fail('nm_plataforma', 'nm_plataforma must be iOS, Android or Web (any case).');
  if (platform === 'web' && device !== null && parseSubscription(device) === null) {
    fail('nm_push', 'For Web, nm_push must be the browser subscription as JSON: {"endpoint":"https://…","keys":{"p256dh":"…","auth":"…"}}.');
  }

  const date = text('dt_envio');
  const time = text('hr_envio');
  if (date !== null && !isRealDate(date)) fail('dt_envio', 'dt_envio must be a real date YYYY-MM-DD.');
  if (time !== null && !isWallTime(time)) fail('hr_envio', 'hr_envio must be a time HH:MM:SS (00:00:00 to 23:59:59).');
  if ((date === null) !== (time === null)) fail(date === null ? 'dt_envio' : 'hr_envio', 'dt_envio and hr_envio go together: give both or neither.');
  const zone = text('timezone');
  if (zone !== null && !isTimeZone(zone)) fail('timezone', 'timezone must be an IANA time zone name such as America/Sao_Paulo.');
  if (local) {
    if (item.timezone == null) fail('timezone', 'timezone is required with delivery "local".');
    for (const field of ['dt_envio', 'hr_envio'] as const) {
      if (item[field] != null) fail(field, `${field} is given once for the batch with delivery "local", not per item.`);
    }
  }

  const values = variables(item, text, fail);
  if (Object.keys(errors).length > 0 || values === null) return { ok: false, errors };

  const filledTitle = fillTemplate(title, values);
  const filledBody = fillTemplate(message!, values);
  if (filledTitle.missing.length > 0) fail('nm_titulo', missingMessage(filledTitle.missing));
  if (filledBody.missing.length > 0) fail('nm_mensagem', missingMessage(filledBody.missing));
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const content: PushContent = { title: filledTitle.text, body: filledBody.text, urlScheme };
  const bytes = payloadBytes(platform!, content);
  if (bytes > MAX_PAYLOAD_BYTES) return { ok: false, errors: { payload: [`The notification payload is ${bytes} bytes; the limit is ${MAX_PAYLOAD_BYTES}.`] } };
  const now = new Date();
  const timeZone = zone ?? defaultZone;
  const dueAt = local ? localDue(local, timeZone, now.getTime()) : date !== null && time !== null ? dueInstant(date, time, timeZone) : now;
  if (dueAt.getTime() - now.getTime() > SCHEDULE_HORIZON_DAYS * 86_400_000) {
    return {
      ok: false,
      errors: {
        dt_envio: [
          `dt_envio ${date ?? local?.date} ${time ?? local?.time} is more than ${SCHEDULE_HORIZON_DAYS} days ahead; pushes are scheduled at most that far.`,
        ],
      },
    };
  }
  return { ok: true, push: { ...content, name, device: device!, platform: platform!, dueAt, timeZone } };
}

function localDue(local: LocalDelivery, zone: string, now: number): Date {
  const known = local.dueByZone?.get(zone);
  if (known !== undefined) return new Date(known);
  const due = localInstant(local.time, zone, now, local.date);
  local.dueByZone?.set(zone, due.getTime());
  return due;
}

function toPlatform(value: string): Platform | null {
  const lower = value.trim().toLowerCase();
  return lower === 'ios' || lower === 'android' || lower === 'web' ? lower : null;
}

function missingMessage(names: string[]): string {
  return `No value for ${names.map((n) => `{{${n}}}`).join(', ')}.`;
}

/**
 * The item's variables: `valor_json` (an object of names to strings, numbers or booleans)
 * when present, otherwise `campos` and `valor` paired by position. Null when they are wrong.
 */
function variables(
  item: Record<string, unknown>,
  text: (field: PushItemFieldName) => string | null,
  fail: (field: string, message: string) => void,
): Map<string, string> | null {
  const json = item.valor_json;
  if (json !== undefined && json !== null) {
    const parsed = parseJsonObject(json);
    if (typeof parsed === 'string') return (fail('valor_json', parsed), null);
    const values = new Map<string, string>();
    for (const [key, value] of Object.entries(parsed)) {
      if (!VARIABLE_NAME.test(key)) return (fail('valor_json', `"${key.slice(0, 64)}" is not a variable name (letters, digits, _ . -).`), null);
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        return (fail('valor_json', `The value of "${key}" must be a string, a number or a boolean.`), null);
      }
      values.set(key, String(value));
    }
    return checkCount(values, fail, 'valor_json');
  }
  const campos = text('campos');
  const valor = text('valor');
  const names = split(campos);
  const given = split(valor);
  if (names.length !== given.length) {
    fail('valor', `campos names ${names.length} variable(s) but valor has ${given.length} value(s).`);
    return null;
  }
  const values = new Map<string, string>();
  for (const [i, name] of names.entries()) {
    if (!VARIABLE_NAME.test(name)) return (fail('campos', `"${name.slice(0, 64)}" is not a variable name (letters, digits, _ . -).`), null);
    if (values.has(name)) return (fail('campos', `"${name}" appears twice.`), null);
    values.set(name, given[i]);
  }
  return checkCount(values, fail, 'campos');
}

function checkCount(values: Map<string, string>, fail: (field: string, message: string) => void, field: string): Map<string, string> | null {
  if (values.size <= MAX_VARIABLES) return values;
  fail(field, `At most ${MAX_VARIABLES} variables per push.`);
  return null;
}

/** Comma-separated, each part trimmed; an absent or blank list is empty. */
function split(list: string | null): string[] {
  return list === null || list.trim() === '' ? [] : list.split(',').map((part) => part.trim());
}

/** The object, or a message saying why it is not one. Also takes an object sent as JSON directly. */
function parseJsonObject(value: unknown): Record<string, unknown> | string {
  let parsed = value;
  if (typeof value === 'string') {
    if (value.length > PUSH_ITEM_FIELDS.valor_json.maxLength) return `valor_json must be at most ${PUSH_ITEM_FIELDS.valor_json.maxLength} characters.`;
    try {
      parsed = JSON.parse(value);
    } catch {
      return 'valor_json must be a JSON object, e.g. {"name":"Ana"}; it is not valid JSON.';
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'valor_json must be a JSON object, e.g. {"name":"Ana"}.';
  return parsed as Record<string, unknown>;
}
