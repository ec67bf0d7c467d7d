import { SecretCipher } from '@app/secrets';

/**
 * A webhook's custom headers at rest: each value encrypted like a signing secret (with the
 * key id, so rotation works), the names readable. Unsigned services' receivers authenticate
 * deliveries by these values alone.
 */
export function sealHeaders(cipher: SecretCipher, headers: Record<string, string>): Record<string, string> {
  return mapValues(headers, (value) => cipher.encrypt(value));
}

/** The values as sent; a plaintext value (a row from before encryption at rest) is read as it is. */
export function openHeaders(cipher: SecretCipher, headers: Record<string, string>): Record<string, string> {
  return mapValues(headers, (value) => (SecretCipher.isCiphertext(value) ? cipher.decrypt(value) : value));
}

/** Every value made with the current key (plaintext encrypted, older keys re-encrypted). */
export function reencryptHeaders(cipher: SecretCipher, headers: Record<string, string>): Record<string, string> {
  return mapValues(headers, (value) => cipher.reencrypt(value));
}

function mapValues(headers: Record<string, string>, fn: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, fn(value)]));
}
