import { ValidateBy, type ValidationOptions } from 'class-validator';
import { parseEncryptionKeys } from './secret-cipher';

/** Validates an ENCRYPTION_KEYS value; the message says what is wrong without echoing key material. */
export function IsEncryptionKeys(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isEncryptionKeys',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          try {
            parseEncryptionKeys(value);
            return true;
          } catch {
            return false;
          }
        },
        defaultMessage: (args) => {
          try {
            parseEncryptionKeys(String(args?.value ?? ''));
            return 'must be comma-separated <keyId>:<base64 of 32 bytes>';
          } catch (error) {
            return `must be comma-separated <keyId>:<base64 of 32 bytes>: ${(error as Error).message}`;
          }
        },
      },
    },
    options,
  );
}

/** The setting every service that stores secrets declares (required: no default key exists). */
export class EncryptionConfig {
  /** `<keyId>:<base64 of 32 bytes>`, comma-separated; the first encrypts, all decrypt. */
  @IsEncryptionKeys()
  ENCRYPTION_KEYS!: string;
}
