import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { ThrottledWarning } from '@app/observability';
import { CIPHERTEXT_PREFIX, SecretCipher } from '@app/secrets';
import { reencryptHeaders } from './webhook-headers';
import { WebhookServiceConfig } from './webhook.config';
import { WebhooksRepository } from './webhooks.repository';

const BATCH = 500;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Upkeep that runs in every process with the engine:
 * - at start (before the relay and workers), signing secrets and custom header values not encrypted with the current
 *   key (plaintext rows from before encryption at rest, or rows of an older key after a rotation) are encrypted
 *   with it, so an old key can be dropped from ENCRYPTION_KEYS once every process ran. This is the data migration
 *   of encryption at rest: a schema migration cannot do it, it has no key;
 * - every hour, attempts older than WEBHOOK_ATTEMPT_RETENTION_DAYS are deleted.
 * Both are idempotent; replicas doing them at once only repeat each other's no-ops.
 */
@Injectable()
export class WebhookMaintenance implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookMaintenance');
  private readonly failure = new ThrottledWarning('WebhookMaintenance');
  private timer?: NodeJS.Timeout;
  private pruning: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly cipher: SecretCipher,
    private readonly config: WebhookServiceConfig,
  ) {}

  /** Before anything delivers: a secret no listed key decrypts stops the start here, with the key's name. */
  async onModuleInit(): Promise<void> {
    const count = await this.reencryptSecrets();
    if (count > 0) this.logger.log(`encrypted the secrets and header values of ${count} webhooks with key "${this.cipher.currentKeyId}"`);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.prune(), PRUNE_EVERY_MS).unref();
    void this.prune();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    // Pruning stuck on a database that went away must not hold the shutdown: wait a bounded time.
    await Promise.race([this.pruning, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }

  /** Encrypts, with the current key, every secret and header value that is not yet; returns how many webhooks changed. */
  async reencryptSecrets(): Promise<number> {
    const current = `${CIPHERTEXT_PREFIX}${this.cipher.currentKeyId}:`;
    let total = 0;
    for (;;) {
      const rows = await this.repository.secretsToReencrypt(current, BATCH);
      if (rows.length === 0) return total;
      const changed = await this.repository.replaceSecrets(
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

  /** Deletes attempts past their retention, in batches; returns how many. */
  prune(): Promise<number> {
    this.pruning = (async () => {
      let total = 0;
      try {
        for (;;) {
          const n = await this.repository.pruneAttempts(this.config.WEBHOOK_ATTEMPT_RETENTION_DAYS, 10_000);
          total += n;
          if (n < 10_000) return total;
        }
      } catch (error) {
        this.failure.warn(`pruning the attempt log: ${(error as Error).message}`);
        return total;
      }
    })();
    return this.pruning;
  }
}
