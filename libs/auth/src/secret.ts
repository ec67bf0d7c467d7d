import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

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
 * How a credential reads: Sanctum's `<id>|<secret>` (parsed by `idBarSecret`) or an opaque key
 * `<prefix>_<id>_<secret>` (parsed by `opaqueKey(prefix)`; the prefix names the store and makes leaked keys greppable).
 */
export type CredentialFormat = 'id|secret' | { prefix: string };

export interface MintedCredential {
  /** The row's primary key, a new UUID: the verifier finds the row by it with one index probe. */
  id: string;
  /** What the client gets, shown once and never stored. */
  plainText: string;
  /** What the row stores: the secret's SHA-256. */
  secretHash: Buffer;
}

/** A new credential of `format`: every app's issuer mints through this, then stores `id` and `secretHash` with its repository. */
export function mintCredential(format: CredentialFormat): MintedCredential {
  if (format !== 'id|secret' && !/^[A-Za-z0-9]+$/.test(format.prefix)) throw new Error('A key prefix is letters and digits.');
  const id = randomUUID();
  const secret = generateSecret();
  return { id, plainText: format === 'id|secret' ? `${id}|${secret}` : `${format.prefix}_${id}_${secret}`, secretHash: hashSecret(secret) };
}
