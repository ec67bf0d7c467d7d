import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ThrottledWarning } from '@app/observability';
import { connectRedis, redisTarget, RedisConfig, type RedisClient } from '@app/redis';
import type { Numbered } from './changes.repository';

/** Called when a client's feed may have moved; readers then read PostgreSQL. */
export type Wake = () => void;

/**
 * Wakes this replica's readers when their client's feed moved. The replica that numbered a batch of
 * changes wakes its own readers at once and publishes `from-to|client:cursor,…` on one Redis channel
 * (`<REDIS_PREFIX>changes`), to which every replica subscribes on a connection of its own. A message
 * is only a hint: readers always read PostgreSQL. Each replica tracks up to which cursor the batches
 * it heard of are contiguous; when its sweep finds the feed beyond that (Redis away, a message lost),
 * it wakes every reader.
 */
@Injectable()
export class ChangeNotifier implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ChangeNotifier');
  private readonly readers = new Map<string, Set<Wake>>();
  private readonly channel: string;
  private subscriber?: RedisClient;
  private publisher?: RedisClient;
  /** Every batch up to this cursor was heard of (so its readers were woken). */
  private covered: bigint | null = null;
  /** Batches heard of beyond a gap: from → to. */
  private readonly ahead = new Map<bigint, bigint>();

  constructor(private readonly redis: RedisConfig) {
    this.channel = `${redis.REDIS_PREFIX}changes`;
  }

  onApplicationBootstrap(): void {
    const failure = new ThrottledWarning('ChangeNotifier');
    const open = () => {
      const client = connectRedis(redisTarget(this.redis), { maxRetriesPerRequest: null, enableOfflineQueue: true, connectTimeout: 2000 });
      client.on('error', (error: Error) => failure.warn(`change notifications: ${error.message}`));
      return client;
    };
    this.publisher = open();
    this.subscriber = open();
    this.subscriber.on('message', (_channel: string, message: string) => this.received(message));
    // ioredis subscribes again after a reconnect; meanwhile the sweep wakes readers.
    this.subscriber.subscribe(this.channel).catch((error: Error) => this.logger.warn(`subscribing to ${this.channel}: ${error.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    for (const client of [this.subscriber, this.publisher]) await client?.quit().catch(() => client.disconnect());
  }

  /** How many readers are registered in this replica. */
  get readerCount(): number {
    let n = 0;
    for (const set of this.readers.values()) n += set.size;
    return n;
  }

  /** Registers a reader of `clientId`'s feed; returns its removal. */
  listen(clientId: string, wake: Wake): () => void {
    let set = this.readers.get(clientId);
    if (!set) this.readers.set(clientId, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && this.readers.get(clientId) === set) this.readers.delete(clientId);
    };
  }

  /** This replica numbered a batch: wake local readers now, and tell the others. */
  announce(batch: Numbered): void {
    if (batch.to < batch.from) return;
    this.heard(batch);
    const clients = [...batch.byClient].map(([client, seq]) => `${client}:${seq}`).join(',');
    this.publisher?.publish(this.channel, `${batch.from}-${batch.to}|${clients}`).catch(() => undefined);
  }

  /** The sweep found the feed at `lastSeq`: beyond what was heard of, every reader looks. */
  moved(lastSeq: string): void {
    const seq = BigInt(lastSeq);
    if (this.covered === null || seq <= this.covered) {
      this.covered ??= seq;
      return;
    }
    this.covered = seq;
    for (const from of [...this.ahead.keys()]) if (this.ahead.get(from)! <= seq) this.ahead.delete(from);
    for (const set of [...this.readers.values()]) for (const wake of [...set]) wake();
  }

  private received(message: string): void {
    const match = /^(\d+)-(\d+)\|(.*)$/s.exec(message);
    if (!match) return;
    const byClient = new Map<string, string>();
    for (const pair of match[3].split(',')) {
      const at = pair.lastIndexOf(':');
      if (at > 0) byClient.set(pair.slice(0, at), pair.slice(at + 1));
    }
    this.heard({ from: BigInt(match[1]), to: BigInt(match[2]), byClient });
  }

  private heard(batch: Numbered): void {
    let covered = this.covered;
    if (covered !== null && batch.to > covered) {
      this.ahead.set(batch.from, batch.to);
      for (let next = this.ahead.get(covered + 1n); next !== undefined; next = this.ahead.get(covered + 1n)) {
        this.ahead.delete(covered + 1n);
        covered = next > covered ? next : covered;
      }
      this.covered = covered;
    }
    for (const client of batch.byClient.keys()) for (const wake of [...(this.readers.get(client) ?? [])]) wake();
  }
}
