import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DAY_SECONDS, Pruner } from '@app/database';
import { CIPHERTEXT_PREFIX, SecretCipher } from '@app/secrets';
import { reencryptHeaders } from './webhook-headers';
import { WebhookServiceConfig } from './webhook.config';
import { WebhookSecretsRepository } from './webhook-secrets.repository';
import { WebhookTables } from './webhook-tables';

const BATCH = 500;

/**
 * Upkeep that runs in every process with the engine:
 * - at start (before the relay and workers), signing secrets and custom header values not encrypted with the current
 *   key (plaintext rows from before encryption at rest, or rows of an older key after a rotation) are encrypted
 *   with it, so an old key can be dropped from ENCRYPTION_KEYS once every process ran. This is the data migration
 *   of encryption at rest: a schema migration cannot do it, it has no key;
 * - the database lib's Pruner deletes attempts older than WEBHOOK_ATTEMPT_RETENTION_DAYS, and finished
 *   deliveries (succeeded, failed, cancelled) whose last attempt is older than WEBHOOK_DELIVERY_RETENTION_DAYS.
 * Re-encryption is idempotent; replicas doing it at once only repeat each other's no-ops.
 */
@Injectable()
export class WebhookMaintenance implements OnModuleInit {
  private readonly logger = new Logger('WebhookMaintenance');

  constructor(
    private readonly secrets: WebhookSecretsRepository,
    private readonly cipher: SecretCipher,
    config: WebhookServiceConfig,
    tables: WebhookTables,
    pruner: Pruner,
  ) {
    // Attempts first: a delivery's rule would otherwise cascade to all of its attempts in one statement.
    pruner.register(
      { table: tables.attempts, expired: 'attempted_at < cutoff', keepSeconds: () => config.WEBHOOK_ATTEMPT_RETENTION_DAYS * DAY_SECONDS },
      {
        table: tables.deliveries,
        expired: `status IN ('succeeded', 'failed', 'cancelled') AND COALESCE(last_attempt_at, created_at) < cutoff`,
        keepSeconds: () => config.WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_SECONDS,
      },
    );
  }

  /** Before anything delivers: a secret no listed key decrypts stops the start here, with the key's name. */
  async onModuleInit(): Promise<void> {
    const count = await this.reencryptSecrets();
    if (count > 0) this.logger.log(`encrypted the secrets and header values of ${count} webhooks with key "${this.cipher.currentKeyId}"`);
  }

  /** Encrypts, with the current key, every secret and header value that is not yet; returns how many webhooks changed. */
  async reencryptSecrets(): Promise<number> {
    const current = `${CIPHERTEXT_PREFIX}${this.cipher.currentKeyId}:`;
    let total = 0;
    for (;;) {
      const rows = await this.secrets.toReencrypt(current, BATCH);
      if (rows.length === 0) return total;
      const changed = await this.secrets.replace(
        rows.map(({ id, ...old }) => ({
          id,
          old,
          next: {
            secret: old.secret && this.cipher.reencrypt(old.secret),
            previous_secret: old.previous_secret && this.cipher.reencrypt(old.previous_secret),
            headers: reencryptHeaders(this.cipher, old.headers),
          },
        })),
      );
      total += changed;
      if (rows.length < BATCH) return total;
    }
  }
}
