import { createHash } from 'node:crypto';
import { generateSecret, hashSecret, secretMatches } from './secret';

describe('secrets', () => {
  it('generates 40 base62 characters by default', () => {
    for (let i = 0; i < 20; i++) expect(generateSecret()).toMatch(/^[A-Za-z0-9]{40}$/);
  });

  it('honours a requested length', () => {
    expect(generateSecret(1)).toMatch(/^[A-Za-z0-9]$/);
    expect(generateSecret(200)).toMatch(/^[A-Za-z0-9]{200}$/);
  });

  it('never repeats itself and uses the whole alphabet', () => {
    const many = Array.from({ length: 200 }, () => generateSecret());
    expect(new Set(many).size).toBe(many.length);
    expect(new Set(many.join('')).size).toBe(62);
  });

  it('hashes with SHA-256', () => {
    const hash = hashSecret('abc');
    expect(hash).toHaveLength(32);
    expect(hash.toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashSecret('héllo').equals(createHash('sha256').update('héllo', 'utf8').digest())).toBe(true);
  });

  it('matches the right secret only', () => {
    const secret = generateSecret();
    const hash = hashSecret(secret);
    expect(secretMatches(secret, hash)).toBe(true);
    expect(secretMatches(`${secret}x`, hash)).toBe(false);
    expect(secretMatches(secret.slice(1), hash)).toBe(false);
    expect(secretMatches('', hash)).toBe(false);
  });

  it('returns false (never throws) for a hash of another length', () => {
    expect(secretMatches('abc', Buffer.alloc(0))).toBe(false);
    expect(secretMatches('abc', hashSecret('abc').subarray(0, 16))).toBe(false);
  });
});
