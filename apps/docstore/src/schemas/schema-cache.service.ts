import { setTimeout as setTimeoutCallback } from 'node:timers';
import { setTimeout } from 'node:timers/promises';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DatabaseConfig, directDatabaseUrl } from '@app/database';
import { Client } from 'pg';
import type { DocumentScope } from '../address/document-scope';
import { JsonSchemaValidator, type SchemaCheck } from './json-schema.validator';
import { SCHEMA_CHANGED_CHANNEL, schemaCacheKey, SchemasRepository } from './schemas.repository';

const LIMIT = 5000;
/** How long a schema change waits for its own notification before answering anyway. */
const DELIVERY_WAIT_MS = 2000;

/**
 * The compiled schema of each collection (or the fact that it has none), so a write does
 * not read its schema from PostgreSQL. A schema change commits with a NOTIFY on
 * SCHEMA_CHANGED_CHANNEL; every replica LISTENs on a connection of its own (to
 * DATABASE_DIRECT_URL: a transaction pooler would drop the subscription) and drops the
 * collection's entry when it arrives, milliseconds after the commit. While that connection
 * is down nothing is cached (every write reads its schema), and the cache is emptied when
 * it comes back, so a missed notification never leaves a stale schema in use.
 */
@Injectable()
export class SchemaCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SchemaCache');
  private readonly entries = new Map<string, Promise<SchemaCheck | null>>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private listener: Client | null = null;
  private listening = false;
  private closed = false;

  constructor(
    private readonly schemas: SchemasRepository,
    private readonly validator: JsonSchemaValidator,
    private readonly config: DatabaseConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!(await this.connect())) void this.reconnect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.listening = false;
    await this.listener?.end().catch(() => undefined);
  }

  /** The check for the collection's schema, or null when it has none. */
  get(scope: DocumentScope): Promise<SchemaCheck | null> {
    const key = schemaCacheKey(scope);
    const hit = this.entries.get(key);
    if (hit) return hit;
    const loaded = this.schemas.find(scope).then((row) => (row ? this.validator.compile(row.schema) : null));
    if (!this.listening) return loaded;
    this.entries.set(key, loaded);
    loaded.catch(() => this.entries.get(key) === loaded && this.entries.delete(key));
    if (this.entries.size > LIMIT) this.entries.delete(this.entries.keys().next().value!);
    return loaded;
  }

  /**
   * Makes a change of the collection's schema: drops this process's entry and waits until
   * PostgreSQL has delivered the change's notification to this process's listener (so it
   * has been sent to every replica's listener too) before the change is answered. Without
   * a listener, when `changed` says nothing changed (so nothing was sent), or after
   * DELIVERY_WAIT_MS, it goes on without waiting.
   */
  async change<T>(scope: DocumentScope, write: () => Promise<T>, changed: (result: T) => boolean = () => true): Promise<T> {
    const key = schemaCacheKey(scope);
    let resolve!: () => void;
    const delivered = new Promise<void>((r) => (resolve = r));
    const waiting = this.waiters.get(key) ?? new Set();
    this.waiters.set(key, waiting.add(resolve));
    const timer = setTimeoutCallback(resolve, DELIVERY_WAIT_MS);
    try {
      const result = await write();
      this.entries.delete(key);
      if (this.listening && changed(result)) await delivered;
      return result;
    } finally {
      clearTimeout(timer);
      waiting.delete(resolve);
      if (waiting.size === 0 && this.waiters.get(key) === waiting) this.waiters.delete(key);
    }
  }

  /**
   * Resolves when this process next hears (through its listener) that the collection's
   * schema changed: how a caller, e.g. a test with two replicas, knows a change has reached
   * this replica. Never resolves while nothing listens.
   */
  nextChange(scope: DocumentScope): Promise<void> {
    const key = schemaCacheKey(scope);
    return new Promise((resolve) => {
      const waiting = this.waiters.get(key) ?? new Set();
      const done = () => {
        waiting.delete(done);
        if (waiting.size === 0 && this.waiters.get(key) === waiting) this.waiters.delete(key);
        resolve();
      };
      this.waiters.set(key, waiting.add(done));
    });
  }

  private notified(key: string): void {
    this.entries.delete(key);
    for (const resolve of this.waiters.get(key) ?? []) resolve();
  }

  /** Opens the LISTEN connection; false when it cannot. */
  private async connect(): Promise<boolean> {
    const client = new Client({ connectionString: directDatabaseUrl(this.config), application_name: 'docstore-schema-listener' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query(`LISTEN ${SCHEMA_CHANGED_CHANNEL}`);
    } catch (error) {
      this.logger.warn(`Cannot listen for schema changes (${(error as Error).message}); schemas are read on every write until it can.`);
      await client.end().catch(() => undefined);
      return false;
    }
    client.on('notification', (n) => n.payload !== undefined && this.notified(n.payload));
    client.once('end', () => void this.reconnect());
    this.listener = client;
    // Changes made while nobody listened are unknown: start empty.
    this.entries.clear();
    this.listening = true;
    return true;
  }

  private async reconnect(): Promise<void> {
    this.listening = false;
    this.entries.clear();
    if (!this.closed && this.listener) this.logger.warn('Lost the schema-change listener; reading schemas on every write until it is back.');
    this.listener = null;
    for (let attempt = 1; !this.closed; attempt++) {
      await setTimeout(Math.min(5000, 100 * attempt));
      if (this.closed || (await this.connect())) return;
    }
  }
}
