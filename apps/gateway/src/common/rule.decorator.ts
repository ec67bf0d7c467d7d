import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ValidateBy } from 'class-validator';
import { NetworkConfig } from '../network/network.config';

/**
 * Digits with country code, as the network takes a recipient (`+` and separators tolerated, as the
 * network does): 6 to 15 digits, the most an E.164 number has.
 */
export const PHONE_NUMBER = /^(?=(?:[^0-9]*[0-9]){6,15}[^0-9]*$)\+?[0-9][0-9 ()-]{5,30}$/;
/** A URL the network can fetch. */
export const HTTP_URL = /^https?:\/\/[^\s/$.?#][^\s]*$/i;

/** What a rule says of a value: null when it holds, else the refusal (`must be …`). */
export type Refusal = string | null;

/**
 * One field rule for class-validator, worded as the network words a refusal: the global
 * ValidationPipe reports it as `field: <refusal>`, which InvalidInputFilter puts in the
 * network's `(#100) Invalid parameter` body. One rule per field, so one refusal per field.
 * `check` gets the field's value and the whole DTO (for rules between fields). A refusal
 * from partRefusal names a part of the field (`websites.0`).
 */
export function Rule(name: string, check: Check): PropertyDecorator {
  const dto = (object: unknown) => (object ?? {}) as Record<string, unknown>;
  const validateBy = ValidateBy({
    name,
    validator: {
      validate: (value, args) => check(value, dto(args?.object)) === null,
      defaultMessage: (args) => check(args?.value, dto(args?.object)) ?? '',
    },
  });
  return (target, key) => {
    const owner = target.constructor;
    SHAPES.set(owner, [...(SHAPES.get(owner) ?? []), [String(key), check]]);
    validateBy(target, key);
  };
}

/** A DTO class. */
export type DtoClass = new () => object;

export type Check = (value: unknown, dto: Record<string, unknown>) => Refusal;

/** The @Rule checks of each DTO class, in declaration order (what `shape` runs for a nested DTO). */
const SHAPES = new Map<object, [string, Check][]>();
const BEFORE = new Map<object, (value: Record<string, unknown>) => Refusal>();

/** A check of a nested DTO's object run before its fields are (a carousel header's parameters' type). */
export const CheckFirst =
  (check: (value: Record<string, unknown>) => Refusal): ClassDecorator =>
  (target) => {
    BEFORE.set(target, check);
  };

function checksOf(cls: object): [string, Check][] {
  const parent = Object.getPrototypeOf(cls) as object;
  return [...(parent && parent !== Function.prototype ? checksOf(parent) : []), ...(SHAPES.get(cls) ?? [])];
}

const FIELDS = new WeakMap<object, { checks: [string, Check][]; names: ReadonlySet<string> }>();

/** A refusal a field's rule gives of the whole object holding it (`parameters: must hold exactly one of …`). */
export function wholeRefusal(refusal: string): string {
  return `\u0001${refusal}`;
}

/**
 * A nested object checked against the DTO class `cls` with the class's own @Rule checks, in the network's order:
 * an object, no unknown field (the first named), then each field in declaration order. Nested DTOs go through
 * this one validator rather than class-transformer and @ValidateNested: the first refusal stops it, and no
 * instance is built, so a nested body costs what the checks cost.
 */
export function shape(value: unknown, cls: DtoClass): Refusal {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object';
  let fields = FIELDS.get(cls);
  if (!fields) {
    const checks = checksOf(cls);
    fields = { checks, names: new Set(checks.map(([name]) => name)) };
    FIELDS.set(cls, fields);
  }
  const object = value as Record<string, unknown>;
  const before = BEFORE.get(cls)?.(object) ?? null;
  if (before !== null) return before;
  for (const key of Object.keys(object)) {
    if (!fields.names.has(key)) return partRefusal(key, 'is not a known parameter');
  }
  for (const [name, check] of fields.checks) {
    const refusal = check(fieldOf(object, name), object);
    if (refusal === null) continue;
    return refusal.startsWith('\u0001') ? refusal.slice(1) : partRefusal(name, refusal);
  }
  return null;
}

/** A nested object whose DTO class its field `key` picks (`type`: button, list or flow), checked with `shape`. */
export function variant(value: unknown, key: string, classes: Readonly<Record<string, DtoClass>>, options: { ignoreCase?: boolean } = {}): Refusal {
  const kind = fieldOf(value, key);
  const names = Object.keys(classes);
  const found = names.find((name) => name === kind || (options.ignoreCase === true && typeof kind === 'string' && name.toLowerCase() === kind.toLowerCase()));
  if (found === undefined) return partRefusal(key, oneOf(kind, names) ?? '');
  return shape(value, classes[found]);
}

/** The own field `key` of a JSON object; undefined for anything else. */
export function fieldOf(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

/** Sent with a value (null counts as absent, as the network takes it). */
export function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** `check` when the field is sent (null counts as absent), else no refusal. */
export function ifPresent(value: unknown, check: (value: unknown) => Refusal): Refusal {
  return present(value) ? check(value) : null;
}

/** An optional scalar: left out, or passing `check`; null is refused (the network takes no null for it). */
export function optional(value: unknown, check: (value: unknown) => Refusal): Refusal {
  return value === undefined ? null : value === null ? 'is not allowed here' : check(value);
}

/** A refusal of the part `key` of a field (an item, a key): InvalidInputFilter names the field `field.key`. */
export function partRefusal(key: string, refusal: string): string {
  return refusal.startsWith('.') ? `.${key}${refusal}` : `.${key}\u0000${refusal}`;
}

/** The part a refusal names, and its rule: [`.0.reply`, `must …`]; null for a refusal of the field itself. */
export function refusedPart(refusal: string): [string, string] | null {
  const found = /^(\.[^\u0000]*)\u0000(.*)$/s.exec(refusal);
  return found ? [found[1], found[2]] : null;
}

export interface TextRules {
  min?: number;
  max?: number;
  pattern?: RegExp;
  /** Says what `pattern` asks for. */
  rule?: string;
}

/** A string of `min` to `max` characters (code points) matching `pattern`. */
export function text(value: unknown, { min = 1, max, pattern, rule }: TextRules = {}): Refusal {
  if (typeof value !== 'string') return value === undefined ? 'is required' : 'must be a string';
  const length = [...value].length;
  if (length < min) return min === 1 ? 'must not be empty' : `must be at least ${min} characters long`;
  if (max !== undefined && length > max) return `must be at most ${max} characters long`;
  if (pattern && !pattern.test(value)) return rule ?? `must match ${pattern}`;
  return null;
}

/** One of `values`; with `ignoreCase`, in any case (`Body` for `body`). */
export function oneOf(value: unknown, values: readonly string[], options: { ignoreCase?: boolean } = {}): Refusal {
  const found =
    options.ignoreCase === true && typeof value === 'string' ? values.some((v) => v.toLowerCase() === value.toLowerCase()) : values.includes(value as string);
  if (found) return null;
  return value === undefined ? `is required: one of ${values.join(', ')}` : `must be one of ${values.join(', ')}`;
}

/** An array of `min` to `max` items, each passing `item` (a refusal names the item by its index). */
export function list(value: unknown, min: number, max: number, item?: (value: unknown) => Refusal): Refusal {
  if (!Array.isArray(value)) return value === undefined ? 'is required' : 'must be an array';
  if (value.length < min) return min === 1 ? 'must not be empty' : `must hold at least ${min} items`;
  if (value.length > max) return `must hold at most ${max} items`;
  for (const [i, each] of value.entries()) {
    const refusal = item?.(each) ?? null;
    if (refusal !== null) return partRefusal(String(i), refusal);
  }
  return null;
}

/**
 * The settings some rules depend on (the network's name, the webhook types on offer), set when the app starts
 * (RuleSettings, GatewayWebhooksModule): class-validator builds no rule through Nest's DI.
 */
export const RULE_SETTINGS = { network: 'whatsapp', webhookTypes: ['messages'] as readonly string[] };

@Injectable()
export class RuleSettings implements OnModuleInit {
  constructor(private readonly network: NetworkConfig) {}

  onModuleInit(): void {
    RULE_SETTINGS.network = this.network.NETWORK;
  }
}

/** `messaging_product`: the gateway's network (GATEWAY_NETWORK). */
export const MessagingProduct = (): PropertyDecorator => Rule('messagingProduct', (v) => oneOf(v, [RULE_SETTINGS.network]));

/** A number from `min` to `max`; `integer` for a safe integer. */
export function numberIn(value: unknown, min: number, max: number, integer = false): Refusal {
  if (typeof value !== 'number' || !(integer ? Number.isSafeInteger(value) : Number.isFinite(value)))
    return value === undefined ? 'is required' : integer ? 'must be an integer' : 'must be a number';
  return value < min || value > max ? `must be between ${min} and ${max}` : null;
}

/** true or false. */
export function boolean(value: unknown): Refusal {
  return typeof value === 'boolean' ? null : value === undefined ? 'is required' : 'must be true or false';
}

/** A free-form JSON object, when sent. */
export function freeForm(value: unknown): Refusal {
  return present(value) && (typeof value !== 'object' || Array.isArray(value)) ? 'must be an object' : null;
}
