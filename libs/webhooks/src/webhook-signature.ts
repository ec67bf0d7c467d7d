import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { WebhookSigner } from './webhook-engine.options';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the receiver gets
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`, a
 * space-separated list of `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per
 * secret that currently signs (two during a rotation's grace period).
 */
export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** `v1,<signature>` for one secret. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of one delivery attempt, signed by every given secret. */
export function signedHeaders(secrets: readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signature(s, id, timestamp, body)).join(' '),
  };
}

/** Standard Webhooks as a signer for the engine (the docstore's). */
export const standardWebhooksSigner: WebhookSigner = { generateSecret: generateWebhookSecret, sign: signedHeaders };

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface VerifyOptions {
  /** How far the timestamp may be from now, in seconds (replay protection). Default 300. */
  toleranceSeconds?: number;
  /** Current Unix time in seconds; for tests. */
  now?: number;
}

type HeaderBag = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const value = bag[name] ?? bag[Object.keys(bag).find((k) => k.toLowerCase() === name) ?? ''];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * For receivers: checks a delivery's signature against the raw body (the exact bytes
 * received, before any JSON parsing) and returns the parsed payload. Throws
 * WebhookVerificationError when the headers are missing, the timestamp is outside the
 * tolerance, or no signature matches.
 */
export function verifyWebhook<T = unknown>(secret: string, headers: HeaderBag, rawBody: string | Buffer, options: VerifyOptions = {}): T {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header.');
  const seconds = Number(timestamp);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('The webhook-timestamp is too far from the current time.');
  }
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const expected = Buffer.from(signature(secret, id, seconds, body).slice(3), 'base64');
  const matches = signatures.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('No signature matches.');
  return JSON.parse(body) as T;
}
