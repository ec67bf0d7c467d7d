import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { isUuid, secretMatches, type Credential, type CredentialVerifier, type Principal } from '@app/auth';
import { DocstoreConfig } from '../config/docstore.config';
import { TokensRepository, type TokenSecretRow } from './tokens.repository';

interface CacheEntry {
  row: TokenSecretRow;
  until: number;
}

/**
 * Verifies `<id>|<secret>` credentials. Token rows are cached for TOKEN_CACHE_TTL_SECONDS
 * so a steady stream of requests costs no database round trip; changes made in this
 * process evict at once, other replicas see them when their entry expires.
 * last_used_at is gathered in memory and written in one statement every few seconds.
 */
@Injectable()
export class TokenVerifier implements CredentialVerifier, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(TokenVerifier.name);
  private readonly cache = new Map<string, CacheEntry>();
  private lastUsed = new Map<string, Date>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly tokens: TokensRepository,
    private readonly config: DocstoreConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flushLastUsed(), this.config.TOKEN_LAST_USED_FLUSH_SECONDS * 1000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flushLastUsed();
  }

  async verify(credential: Credential): Promise<Principal | null> {
    if (!isUuid(credential.id)) return null;
    const id = credential.id.toLowerCase();
    const row = await this.lookup(id);
    if (!row || row.status !== 'active') return null;
    if (row.expires_at && row.expires_at.getTime() <= Date.now()) return null;
    if (!secretMatches(credential.secret, row.secret_hash)) return null;
    this.lastUsed.set(id, new Date());
    return { tokenId: id, clientId: row.client_id, scopes: row.scopes };
  }

  evict(id: string): void {
    this.cache.delete(id.toLowerCase());
  }

  /**
   * Writes pending last-use times; called on a timer, before listing tokens and at shutdown.
   * Flushes run one after another, so a caller also waits for one already under way
   * (a listing must not read the table before the timer's write has landed).
   */
  flushLastUsed(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeLastUsed());
    return this.flushing;
  }

  private async writeLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = this.lastUsed;
    this.lastUsed = new Map();
    try {
      await this.tokens.touch(batch);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not record token last use; will retry');
      for (const [id, at] of batch) if (!this.lastUsed.has(id)) this.lastUsed.set(id, at);
    }
  }

  private async lookup(id: string): Promise<TokenSecretRow | null> {
    const now = Date.now();
    const hit = this.cache.get(id);
    if (hit && hit.until > now) return hit.row;
    const row = await this.tokens.findSecret(id);
    const ttl = this.config.TOKEN_CACHE_TTL_SECONDS * 1000;
    if (row && ttl > 0) {
      if (this.cache.size >= 100_000) this.cache.clear();
      this.cache.set(id, { row, until: now + ttl });
    }
    return row;
  }
}
