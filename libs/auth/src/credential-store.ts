import { Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Credential, CredentialStore } from './credential-source';
import type { MaybePromise } from './maybe-async';
import type { Principal } from './principal';
import { secretMatches } from './secret';
import { isUuid } from './uuid';

/** What a table holds about one credential. */
export interface StoredCredential<P extends Principal> {
  /** SHA-256 of the secret (`hashSecret`). */
  secretHash: Buffer;
  /** False once revoked or disabled. */
  active: boolean;
  expiresAt?: Date | null;
  /** What `verify` returns when the secret matches. */
  principal: P;
}

/**
 * The contract a table fulfils to back a `CachedCredentialStore`: look one credential up
 * by its (normalized) id, and optionally record when credentials were last used.
 */
export interface CredentialTable<P extends Principal> {
  find(id: string): Promise<StoredCredential<P> | null>;
  /** Many last-use times in one write; a failure is retried with the next batch. */
  touch?(lastUsed: ReadonlyMap<string, Date>): Promise<void>;
}

export interface CachedStoreOptions {
  /** Name used in log lines. */
  name: string;
  /** How long a looked-up row is trusted; also how long a change made elsewhere takes to reach this process. 0 disables the cache. */
  cacheTtlMs: number;
  /** How often last-use times are written back (default 30 s). */
  lastUsedFlushMs?: number;
  /** Most cached rows; the oldest entry goes first. */
  maxEntries?: number;
  /** Canonical form of an id, or null when no row can have it (skips the lookup); default `uuidId`. */
  normalizeId?: (id: string) => string | null;
}

/** The default id form: every credential table is keyed by a UUID, looked up in lower case; anything else cannot match. */
export function uuidId(id: string): string | null {
  return isUuid(id) ? id.toLowerCase() : null;
}

interface CacheEntry<P extends Principal> {
  row: StoredCredential<P>;
  until: number;
}

/**
 * A credential store over one table: SHA-256 hashes compared in constant time, rows
 * cached in memory (bounded, oldest evicted first, concurrent misses share one lookup),
 * last-use times gathered and written in batches. An app subclasses it as an injectable
 * provider that supplies only its lookup and its touch: the flush timer starts with the
 * module and the pending last-use times are written before the app shuts down.
 */
export class CachedCredentialStore<P extends Principal> implements CredentialStore<P>, OnModuleInit, BeforeApplicationShutdown {
  private readonly logger: Logger;
  private readonly normalizeId: (id: string) => string | null;
  private readonly cache = new Map<string, CacheEntry<P>>();
  private readonly pending = new Map<string, Promise<StoredCredential<P> | null>>();
  private readonly maxEntries: number;
  /** Last use (ms since the epoch) per id, not yet written. */
  private lastUsed = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly table: CredentialTable<P>,
    private readonly options: CachedStoreOptions,
  ) {
    this.logger = new Logger(options.name);
    this.maxEntries = options.maxEntries ?? 100_000;
    this.normalizeId = options.normalizeId ?? uuidId;
  }

  onModuleInit(): void {
    this.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.stop();
  }

  start(): void {
    if (!this.table.touch || this.timer) return;
    this.timer = setInterval(() => void this.flushLastUsed(), this.options.lastUsedFlushMs ?? 30_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flushLastUsed();
  }

  /** Answers at once for a cached row; looks the row up otherwise. */
  verify(credential: Credential): MaybePromise<P | null> {
    const id = this.normalizeId(credential.id);
    if (id === null) return null;
    const hit = this.cache.get(id);
    if (hit && hit.until > Date.now()) return this.check(id, credential, hit.row);
    return this.lookup(id).then((row) => this.check(id, credential, row));
  }

  /** Forgets a cached row at once (after a change made in this process). */
  evict(id: string): void {
    const key = this.normalizeId(id);
    if (key !== null) this.cache.delete(key);
  }

  /**
   * Writes pending last-use times; called on a timer, before listings and at shutdown.
   * Flushes run one after another, so a caller also waits for one already under way.
   */
  flushLastUsed(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeLastUsed());
    return this.flushing;
  }

  private async writeLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0 || !this.table.touch) return;
    const batch = this.lastUsed;
    this.lastUsed = new Map();
    try {
      await this.table.touch(new Map([...batch].map(([id, at]) => [id, new Date(at)])));
    } catch (error) {
      this.logger.warn({ err: error }, 'could not record credential last use; will retry');
      for (const [id, at] of batch) if (!this.lastUsed.has(id)) this.lastUsed.set(id, at);
    }
  }

  private check(id: string, credential: Credential, row: StoredCredential<P> | null): P | null {
    if (!row || !row.active) return null;
    const now = Date.now();
    if (row.expiresAt && row.expiresAt.getTime() <= now) return null;
    if (!secretMatches(credential.secret, row.secretHash)) return null;
    if (this.table.touch) this.lastUsed.set(id, now);
    return row.principal;
  }

  private async lookup(id: string): Promise<StoredCredential<P> | null> {
    const now = Date.now();
    let inFlight = this.pending.get(id);
    if (!inFlight) {
      inFlight = this.table.find(id).finally(() => this.pending.delete(id));
      this.pending.set(id, inFlight);
    }
    const row = await inFlight;
    if (row && this.options.cacheTtlMs > 0) this.remember(id, row, now);
    return row;
  }

  private remember(id: string, row: StoredCredential<P>, now: number): void {
    this.cache.delete(id);
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(id, { row, until: now + this.options.cacheTtlMs });
  }
}
