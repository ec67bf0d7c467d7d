import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets stored in the database (webhook signing secrets, provider
 * access tokens). Keys come from the setting ENCRYPTION_KEYS:
 * `<keyId>:<base64 of 32 bytes>[,<keyId>:<base64>...]`. The first key encrypts, every
 * listed key decrypts, and each ciphertext names the key that made it:
 *
 *   enc1:<keyId>:<base64 of iv (12 bytes) | tag (16 bytes) | ciphertext>
 *
 * Rotation: put a new key first (keep the old ones listed); new values use it, old rows
 * stay readable. `reencrypt` turns a value made with an older key into one made with the
 * current key, so a job can rewrite old rows and the old key can then be dropped.
 */
export const CIPHERTEXT_PREFIX = 'enc1:';

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
/**
 * An unedited template (`CHANGE_ME:AAAA…=`, an all-zero key) parses as a valid key, and a service
 * would encrypt with it silently. Random 32 bytes hold about 30 distinct values; fewer than 8 is
 * a made-up key (one byte repeated, a short pattern), never one that `openssl rand` gave.
 */
const PLACEHOLDER_ID = /^(change[_-]?me|replace[_-]?me|placeholder|example|todo)$/i;
const MIN_DISTINCT_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export class SecretDecryptionError extends Error {
  override readonly name = 'SecretDecryptionError';
}

/** Parses the setting; throws an Error whose message says what is wrong (no key material in it). */
export function parseEncryptionKeys(value: string): EncryptionKey[] {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) throw new Error('needs at least one <keyId>:<base64 of 32 bytes>');
  const keys: EncryptionKey[] = [];
  for (const entry of entries) {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    const material = colon < 0 ? '' : entry.slice(colon + 1);
    if (!KEY_ID.test(id)) throw new Error('each key must be <keyId>:<base64 of 32 bytes>, the id 1-32 of A-Z a-z 0-9 _ -');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(material) || Buffer.from(material, 'base64').length !== 32) {
      throw new Error(`key "${id}" must be the base64 of exactly 32 bytes`);
    }
    if (PLACEHOLDER_ID.test(id) || new Set(Buffer.from(material, 'base64')).size < MIN_DISTINCT_BYTES) {
      throw new Error(`key "${id}" is a placeholder, not a secret key; make one with \`openssl rand -base64 32\``);
    }
    if (keys.some((k) => k.id === id)) throw new Error(`key id "${id}" is listed twice`);
    keys.push({ id, key: Buffer.from(material, 'base64') });
  }
  return keys;
}

/** A new setting value with one random key, e.g. for a local development or test run. */
export function generateEncryptionKeys(id = 'local'): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}

export class SecretCipher {
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly current: EncryptionKey;

  constructor(setting: string) {
    const keys = parseEncryptionKeys(setting);
    this.current = keys[0];
    this.keys = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** The id of the key that encrypts. */
  get currentKeyId(): string {
    return this.current.id;
  }

  static isCiphertext(value: string): boolean {
    return value.startsWith(CIPHERTEXT_PREFIX);
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${CIPHERTEXT_PREFIX}${this.current.id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  decrypt(ciphertext: string): string {
    const { keyId, payload } = split(ciphertext);
    const key = this.keys.get(keyId);
    if (!key) throw new SecretDecryptionError(`no key "${keyId}" in ENCRYPTION_KEYS decrypts this value`);
    if (payload.length < IV_BYTES + TAG_BYTES) throw new SecretDecryptionError('ciphertext is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, payload.subarray(0, IV_BYTES));
    decipher.setAuthTag(payload.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(payload.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError(`ciphertext does not authenticate with key "${keyId}"`);
    }
  }

  /** True when the value was made with the current key (nothing to re-encrypt). */
  isCurrent(ciphertext: string): boolean {
    return SecretCipher.isCiphertext(ciphertext) && split(ciphertext).keyId === this.current.id;
  }

  /** The value made with the current key: unchanged when it already is, encrypted when it was plaintext. */
  reencrypt(value: string): string {
    if (this.isCurrent(value)) return value;
    return this.encrypt(SecretCipher.isCiphertext(value) ? this.decrypt(value) : value);
  }
}

function split(ciphertext: string): { keyId: string; payload: Buffer } {
  if (!SecretCipher.isCiphertext(ciphertext)) throw new SecretDecryptionError('value is not a ciphertext of this cipher');
  const rest = ciphertext.slice(CIPHERTEXT_PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon < 1) throw new SecretDecryptionError('ciphertext names no key');
  return { keyId: rest.slice(0, colon), payload: Buffer.from(rest.slice(colon + 1), 'base64') };
}
