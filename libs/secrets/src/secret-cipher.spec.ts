import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { validateSync } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { EncryptionConfig } from './encryption.config';
import { CIPHERTEXT_PREFIX, generateEncryptionKeys, parseEncryptionKeys, SecretCipher, SecretDecryptionError } from './secret-cipher';

const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;

describe('SecretCipher', () => {
  const k1 = key('k1');
  const k2 = key('k2');

  it('round-trips, with a fresh iv each time, naming the key in the ciphertext', () => {
    const cipher = new SecretCipher(k1);
    const a = cipher.encrypt('whsec_abc');
    const b = cipher.encrypt('whsec_abc');
    expect(a).not.toBe(b);
    expect(a.startsWith(`${CIPHERTEXT_PREFIX}k1:`)).toBe(true);
    expect(a).not.toContain('whsec_abc');
    expect(cipher.decrypt(a)).toBe('whsec_abc');
    expect(cipher.decrypt(cipher.encrypt(''))).toBe('');
    expect(cipher.decrypt(cipher.encrypt('ünïcødé ✓'))).toBe('ünïcødé ✓');
  });

  it('encrypts with the first key and decrypts with any listed key (rotation)', () => {
    const old = new SecretCipher(k1);
    const rotated = new SecretCipher(`${k2},${k1}`);
    const before = old.encrypt('s1');
    expect(rotated.decrypt(before)).toBe('s1');
    const after = rotated.encrypt('s2');
    expect(after.startsWith(`${CIPHERTEXT_PREFIX}k2:`)).toBe(true);
    expect(() => old.decrypt(after)).toThrow(SecretDecryptionError);
    expect(() => old.decrypt(after)).toThrow('no key "k2"');
  });

  it('re-encrypts old and plaintext values with the current key, leaves current ones alone', () => {
    const rotated = new SecretCipher(`${k2},${k1}`);
    const old = new SecretCipher(k1).encrypt('s');
    expect(rotated.isCurrent(old)).toBe(false);
    const again = rotated.reencrypt(old);
    expect(rotated.isCurrent(again)).toBe(true);
    expect(rotated.decrypt(again)).toBe('s');
    expect(rotated.reencrypt(again)).toBe(again);
    expect(rotated.decrypt(rotated.reencrypt('plain'))).toBe('plain');
  });

  it('refuses tampered, truncated, foreign and plaintext values', () => {
    const cipher = new SecretCipher(k1);
    const value = cipher.encrypt('secret');
    const raw = Buffer.from(value.slice(`${CIPHERTEXT_PREFIX}k1:`.length), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => cipher.decrypt(`${CIPHERTEXT_PREFIX}k1:${raw.toString('base64')}`)).toThrow('does not authenticate');
    expect(() => cipher.decrypt(`${CIPHERTEXT_PREFIX}k1:AAAA`)).toThrow('truncated');
    expect(() => cipher.decrypt('secret')).toThrow(SecretDecryptionError);
    expect(() => cipher.decrypt(`${CIPHERTEXT_PREFIX}:AAAA`)).toThrow('names no key');
    // Same id, different key material: authentication fails, never garbage.
    expect(() => new SecretCipher(key('k1')).decrypt(value)).toThrow('does not authenticate');
  });
});

describe('parseEncryptionKeys', () => {
  it('accepts one or more keys, spaces around commas', () => {
    expect(parseEncryptionKeys(`${key('a')} , ${key('b-2_X')}`).map((k) => k.id)).toEqual(['a', 'b-2_X']);
    expect(parseEncryptionKeys(generateEncryptionKeys())[0].key.length).toBe(32);
  });

  it.each([
    ['', 'at least one'],
    ['nokey', 'keyId'],
    [`:${randomBytes(32).toString('base64')}`, 'keyId'],
    [`a b:${randomBytes(32).toString('base64')}`, 'keyId'],
    [`a:${randomBytes(16).toString('base64')}`, '32 bytes'],
    ['a:not base64!', '32 bytes'],
    [`${'x'.repeat(33)}:${randomBytes(32).toString('base64')}`, 'keyId'],
  ])('refuses %p', (value, message) => {
    expect(() => parseEncryptionKeys(value)).toThrow(message);
  });

  it.each([
    ["the Secret template's value", 'CHANGE_ME:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
    ['an all-zero key under any id', `k1:${Buffer.alloc(32).toString('base64')}`],
    ['one byte repeated', `k1:${Buffer.alloc(32, 0x41).toString('base64')}`],
    ['a short pattern repeated', `k1:${Buffer.from('abcd'.repeat(8)).toString('base64')}`],
    ['a placeholder id with a random key', key('change-me')],
    ['a placeholder behind a real key', `${key('k1')},${key('REPLACE_ME')}`],
  ])('refuses %s as a placeholder', (_name, value) => {
    expect(() => parseEncryptionKeys(value)).toThrow(/is a placeholder, not a secret key; make one with `openssl rand -base64 32`/);
  });

  it('refuses a key id listed twice', () => {
    expect(() => parseEncryptionKeys(`${key('a')},${key('a')}`)).toThrow('twice');
  });
});

describe('EncryptionConfig', () => {
  const errors = (value: unknown) => validateSync(plainToInstance(EncryptionConfig, { ENCRYPTION_KEYS: value }));

  it('is required and validated, without echoing key material', () => {
    expect(errors(undefined)).toHaveLength(1);
    expect(errors(key('a'))).toHaveLength(0);
    const bad = `a:${'Q'.repeat(20)}`;
    const [error] = errors(bad);
    const message = Object.values(error.constraints ?? {}).join();
    expect(message).toContain('32 bytes');
    expect(message).not.toContain('Q'.repeat(20));
  });
});
