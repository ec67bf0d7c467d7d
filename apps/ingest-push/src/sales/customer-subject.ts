import { createHmac } from 'node:crypto';
import { parseEncryptionKeys } from '@app/secrets';

/** One HMAC key of erased customers, with the pads PostgreSQL needs to compute the same HMAC-SHA256 with sha256(). */
export interface SubjectKey {
  id: string;
  key: Buffer;
  /** The key padded to SHA-256's 64-byte block, XOR 0x36 and 0x5c (RFC 2104). */
  ipad: Buffer;
  opad: Buffer;
}

/**
 * The keys of erased customers' hashes, one per ENCRYPTION_KEYS entry (the first makes new ones). Each is derived
 * from the entry's key for this one use, so the AES key itself never hashes anything.
 */
export function subjectKeys(encryptionKeys: string | undefined): SubjectKey[] {
  if (!encryptionKeys) return [];
  return parseEncryptionKeys(encryptionKeys).map(({ id, key: secret }) => {
    const key = createHmac('sha256', secret).update('ingest-push sales customer erasure').digest();
    const block = Buffer.alloc(64);
    key.copy(block);
    return { id, key, ipad: Buffer.from(block.map((b) => b ^ 0x36)), opad: Buffer.from(block.map((b) => b ^ 0x5c)) };
  });
}

/** Hex HMAC-SHA256 of the CPF/CNPJ digits: how an erasure names its customer. */
export function customerSubject(key: SubjectKey, digits: string): string {
  return createHmac('sha256', key.key).update(digits, 'utf8').digest('hex');
}

/** The same HMAC in SQL over a text expression, with the key's pads as parameters (sha256() is built in; no extension). */
export function customerSubjectSql(digits: string, ipad: string, opad: string): string {
  return `encode(sha256(${opad} || sha256(${ipad} || convert_to(${digits}, 'UTF8'))), 'hex')`;
}
