import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ValidateBy } from 'class-validator';
import { GatewayConfig } from '../config/gateway.config';

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
 * ValidationPipe reports it as `field: <refusal>`, which InvalidInputInterceptor puts in the
 * network's `(#100) Invalid parameter` body. One rule per field, so one refusal per field.
 * `check` gets the field's value and the whole DTO (for rules between fields). A refusal
 * from partRefusal names a part of the field (`websites.0`).
 */
export function Rule(name: string, check: (value: unknown, dto: Record<string, unknown>) => Refusal): PropertyDecorator {
  const dto = (object: unknown) => (object ?? {}) as Record<string, unknown>;
  return ValidateBy({
    name,
    validator: {
      validate: (value, args) => check(value, dto(args?.object)) === null,
      defaultMessage: (args) => check(args?.value, dto(args?.object)) ?? '',
    },
  });
}

/** A refusal of the part `key` of a field (an item, a key): InvalidInputInterceptor names the field `field.key`. */
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

export function oneOf(value: unknown, values: readonly string[]): Refusal {
  if (values.includes(value as string)) return null;
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
 * The settings some rules depend on (the network's name, the webhook types on offer), set
 * from GatewayConfig when the app starts: class-validator builds no rule through Nest's DI.
 */
export const RULE_SETTINGS = { network: 'whatsapp', webhookTypes: ['messages'] as readonly string[] };

@Injectable()
export class RuleSettings implements OnModuleInit {
  constructor(private readonly config: GatewayConfig) {}

  onModuleInit(): void {
    RULE_SETTINGS.network = this.config.NETWORK;
    RULE_SETTINGS.webhookTypes = this.config.webhookTypes;
  }
}

/** `messaging_product`: the gateway's network (GATEWAY_NETWORK). */
export const MessagingProduct = (): PropertyDecorator => Rule('messagingProduct', (v) => oneOf(v, [RULE_SETTINGS.network]));
