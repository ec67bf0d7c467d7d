import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Sql } from '@app/database';
import { Metrics, type MetricCounter } from '@app/observability';
import { OutboxRelay, QueueProducer, type NewJob } from '@app/queue';
import { RedisConfig } from '@app/redis';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.entities';
import { PushConfig } from './push.config';
import { PLATFORMS, type Platform } from './push-payload';
import { PUSH_QUEUES, SEND_JOB, sendJobId, type SendJobData } from './push-queue';
import { PushSendProcessor } from './push-send.processor';
import { PushRepository } from './push.repository';
import { PUSH_PROVIDERS, type PushProviders } from './providers/push-provider';

/** Rows a relay moves per run (one transaction). */
const RELAY_BATCH = 2000;

interface RelayedRow {
  id: string;
  attempts: number;
  account_id: string;
}

interface Lane {
  producer: QueueProducer<SendJobData>;
  relay: OutboxRelay<RelayedRow, SendJobData>;
  worker: PushSendProcessor;
}

/**
 * Moves due pushes from PostgreSQL into BullMQ and sends them, one lane per platform
 * (queue, relay, worker), on the shared outbox relay of libs/queue: push_items is the
 * outbox, the account is the fairness key. Runs where PUSH_WORKERS says (inline or only).
 */
@Injectable()
export class PushFanOut implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly lanes = new Map<Platform, Lane>();
  private readonly results: MetricCounter<'provider' | 'outcome'>;

  constructor(
    private readonly sql: Sql,
    private readonly repository: PushRepository,
    private readonly config: PushConfig,
    private readonly redis: RedisConfig,
    @Inject(PUSH_PROVIDERS) private readonly providers: PushProviders,
    metrics: Metrics,
  ) {
    this.results = metrics.counter('push_results_total', 'Push notifications by provider (fcm, apns) and outcome (sent, failed, invalid_token).', ['provider', 'outcome']);
  }

  get enabled(): boolean {
    return this.config.PUSH_WORKERS !== 'off';
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    const connection = { redisUrl: this.redis.REDIS_URL, redisPrefix: this.redis.REDIS_PREFIX };
    for (const platform of PLATFORMS) {
      const producer = new QueueProducer<SendJobData>(PUSH_QUEUES[platform], connection);
      const relay = new OutboxRelay<RelayedRow, SendJobData>(this.sql, producer, {
        name: PUSH_QUEUES[platform],
        table: `${INGEST_PUSH_SCHEMA}.push_items`,
        keyColumn: 'account_id',
        keys: `SELECT id AS key FROM ${INGEST_PUSH_SCHEMA}.push_accounts`,
        where: `t.platform = '${platform}'`,
        returning: 't.id, t.attempts, t.account_id',
        perKey: this.config.PUSH_MAX_QUEUED_PER_ACCOUNT,
        batch: RELAY_BATCH,
        intervalMs: this.config.PUSH_RELAY_INTERVAL_MS,
        sweepMs: this.config.PUSH_SWEEP_SECONDS * 1000,
        toJobs: (rows) => this.toJobs(rows),
        rowIds: (data) => data.items.map((item) => item.id),
      });
      const worker = new PushSendProcessor({
        platform,
        provider: this.providers[platform],
        repository: this.repository,
        retrySchedule: this.config.retrySchedule,
        staleClaimMs: this.config.timeoutMs + 5000,
        finished: () => relay.kick(),
        recorded: (results) => {
          for (const outcome of ['sent', 'failed', 'invalid_token'] as const) {
            this.results.inc({ provider: this.providers[platform].name, outcome }, results.filter((r) => r.status === outcome).length);
          }
        },
      });
      this.lanes.set(platform, { producer, relay, worker });
      worker.start(connection, this.config.PUSH_CONCURRENCY, () => void relay.requeueLost(), this.config.PUSH_WORKER_LOCK_SECONDS * 1000);
      relay.start();
    }
  }

  /** Stops relaying, lets the workers finish the jobs in flight and record them, then closes. */
  async beforeApplicationShutdown(): Promise<void> {
    const lanes = [...this.lanes.values()];
    await Promise.all(lanes.map((lane) => lane.relay.stop()));
    await Promise.all(lanes.map((lane) => lane.worker.close()));
    await Promise.all(lanes.map((lane) => lane.producer.close()));
    await Promise.all(Object.values(this.providers).map((provider) => provider.close()));
    this.lanes.clear();
  }

  /** Asks the relays for a run now (pushes that are already due were just recorded). */
  kick(): void {
    for (const lane of this.lanes.values()) lane.relay.kick();
  }

  /** Resolves when everything due now has been handed to the queues (tests). */
  async drain(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.relay.drain()));
  }

  /** Pushes of one account, PUSH_ITEMS_PER_JOB to a job, each carrying the attempt it is for. */
  private toJobs(rows: RelayedRow[]): Array<NewJob<SendJobData>> {
    const byAccount = new Map<string, SendJobData['items']>();
    for (const row of rows) {
      const list = byAccount.get(row.account_id) ?? [];
      list.push({ id: row.id, attempt: row.attempts + 1 });
      byAccount.set(row.account_id, list);
    }
    const jobs: Array<NewJob<SendJobData>> = [];
    const size = this.config.PUSH_ITEMS_PER_JOB;
    for (const items of byAccount.values()) {
      for (let i = 0; i < items.length; i += size) {
        const data = { items: items.slice(i, i + size) };
        jobs.push({ name: SEND_JOB, data, jobId: sendJobId(data) });
      }
    }
    return jobs;
  }
}
