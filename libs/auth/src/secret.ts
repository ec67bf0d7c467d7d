import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 40 characters of base62 (~238 bits): too much entropy to guess, so a fast hash is safe to store. */
export function generateSecret(length = 40): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  // Rejection sampling keeps every character equally likely.
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    if (bytes[i] < 248) out += ALPHABET[bytes[i] % 62];
  }
  return out.length === length ? out : out + generateSecret(length - out.length);
}

/**
 * SHA-256 of the secret; secrets are random, so no salt or slow hash is needed (as Sanctum
 * and GitHub do). One-shot `hash` (every request pays it): half the cost of a Hash object.
 */
export function hashSecret(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}

/** Compares in constant time, whatever the input. */
export function secretMatches(secret: string, hash: Buffer): boolean {
  const candidate = hashSecret(secret);
  return candidate.length === hash.length && timingSafeEqual(candidate, hash);
}

/**
 * A new opaque key `<prefix>_<id>_<secret>` for a row whose primary key is `id`
 * (letters, digits, dashes): store `secretHash`, show `key` once. `opaqueKey(prefix)`
 * parses it back.
 */
export function mintOpaqueKey(prefix: string, id: string): { key: string; secretHash: Buffer } {
  if (!/^[A-Za-z0-9]+$/.test(prefix) || !/^[A-Za-z0-9-]{1,64}$/.test(id)) throw new Error('A key prefix is letters and digits; an id letters, digits and dashes.');
  const secret = generateSecret();
  return { key: `${prefix}_${id}_${secret}`, secretHash: hashSecret(secret) };
}
