import {
  Inject,
  type BeforeApplicationShutdown,
  type InjectionToken,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type Provider,
  type Type,
} from '@nestjs/common';
import { Sql } from '@app/database';
import { inSpan, linkTo, SpanKind, untraced } from '@app/observability';
import { RedisConfig, redisTarget } from '@app/redis';
import { isLaneJob, type LaneItem, type LaneJob } from './lane-job';
import { OutboxRelay, type OutboxSpec } from './outbox-relay';
import type { QueueConnection } from './queue-connection';
import { QueueProducer } from './queue-producer';
import { QueueWorker, type Job } from './queue-worker';
import { runsWorkers, type WorkerMode } from './worker-mode';

/** The one processor of a lane's jobs, a Nest provider. `job.queueName` names the lane (one class may serve several). */
export interface LaneProcessor<Item extends LaneItem> {
  process(job: Job<LaneJob<Item>>): Promise<void>;
}

/** A lane's settings, read from the app's config when the app starts. */
export interface LaneSettings<Row, Item extends LaneItem> extends Omit<OutboxSpec<Row, Item>, 'job'> {
  /** Whether this process takes the lane's jobs (the relay runs in every mode). */
  workers: WorkerMode;
  /** Jobs this process runs at once. */
  concurrency: number;
  /** BullMQ's lock (and stalled-job check): how long a dead worker keeps its jobs. Default 30 s. */
  lockMs?: number;
}

/** Everything an app says to declare a lane: its queue, its job, its processor and its settings. */
export interface LaneDeclaration<Row, Item extends LaneItem> {
  /** The BullMQ queue's name: the lane's name in logs, `/metrics` and `/health`. */
  queue: string;
  /** The name of its only job. */
  job: string;
  /** The class that processes its jobs (provided with the lane; one instance serves every lane that names it). */
  processor: Type<LaneProcessor<Item>>;
  /** What `settings` takes, in order (typically the app's config class). */
  inject?: InjectionToken[];
  settings(...deps: never[]): LaneSettings<Row, Item>;
}

/** Tokens of one lane's providers. */
function tokens(queue: string) {
  return {
    settings: `queue-lane:${queue}:settings`,
    producer: `queue-lane:${queue}:producer`,
    relay: `queue-lane:${queue}:relay`,
    worker: `queue-lane:${queue}:worker`,
    lane: laneToken(queue),
  };
}

/** The token of a lane's handle (QueueLane), e.g. for `app.get` in tests. */
export function laneToken(queue: string): string {
  return `queue-lane:${queue}`;
}

/** Injects a lane's handle: `@InjectLane(PUSH_QUEUES.ios) lane: QueueLane<Row, Item>`. */
export function InjectLane(queue: string): ParameterDecorator {
  return Inject(laneToken(queue));
}

/** The queue connection of the service: its Redis (server or cluster) and its key prefix. */
export function queueConnection(redis: RedisConfig): QueueConnection {
  return { ...redisTarget(redis), redisPrefix: redis.REDIS_PREFIX };
}

/**
 * A lane's worker: hands each job to the lane's processor, then asks the relay for a run (the job's
 * key has room in the queue again). A job of a shape this version does not write is not run: it
 * completes, and the lost-job check relays its rows again.
 */
export class LaneWorker<Row, Item extends LaneItem> extends QueueWorker<LaneJob<Item>> {
  constructor(
    queue: string,
    private readonly processor: LaneProcessor<Item>,
    private readonly relay: OutboxRelay<Row, Item>,
  ) {
    super(queue);
  }

  protected async process(job: Job<LaneJob<Item>>): Promise<void> {
    if (!isLaneJob(job.data)) {
      this.logger.warn(`job ${job.id} is of an unknown shape (an older version's?): its rows are relayed again`);
      return;
    }
    const items = job.data.items;
    // One span per run of the job, in the trace of its first item's request; a run that is not the
    // job's first (a retry after the worker failed) or a later attempt of the row is a new span in that
    // trace, linked to it; the other items' requests (a job carries up to itemsPerJob rows) are linked.
    const first = items.find((item) => item.trace);
    const retry = job.attemptsMade > 0 || (first !== undefined && first.attempt > 1);
    const links = items
      .filter((item) => item.trace && (item !== first || retry))
      .map((item) => linkTo(item.trace, { 'app.outbox.id': item.id, 'app.attempt': item.attempt }));
    await inSpan(
      `${this.queueName} process`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'bullmq',
          'messaging.operation.type': 'process',
          'messaging.destination.name': this.queueName,
          'messaging.message.id': job.id ?? '',
          'messaging.batch.message_count': items.length,
          'app.queue.key': job.data.key,
          'app.job.attempt': job.attemptsMade + 1,
          'app.attempt': items.map((item) => item.attempt),
        },
        links,
      },
      () => this.processor.process(job),
      first?.trace,
    );
    this.relay.kick();
  }
}

/**
 * One lane at run time: its producer, relay and worker (each a provider of its own, so /metrics,
 * /health and shutdown find them), started and stopped together. At start the worker takes jobs
 * where the mode says, and the relay runs; at shutdown the relay stops, the worker finishes
 * the jobs in flight while PostgreSQL is still there, and the producer closes last.
 */
export class QueueLane<Row = unknown, Item extends LaneItem = LaneItem> implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    readonly queue: string,
    readonly producer: QueueProducer<LaneJob<Item>>,
    readonly relay: OutboxRelay<Row, Item>,
    readonly worker: LaneWorker<Row, Item>,
    private readonly connection: QueueConnection,
    private readonly settings: LaneSettings<Row, Item>,
  ) {}

  onApplicationBootstrap(): void {
    const { workers, concurrency, lockMs } = this.settings;
    // When Redis comes back (perhaps empty), the relay looks for rows whose jobs were lost.
    // Outside the app's start-up span: each job's span continues its own request's trace.
    untraced(() => {
      if (runsWorkers(workers)) this.worker.start(this.connection, concurrency, () => void this.relay.requeueLost(), lockMs);
      this.relay.start();
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.relay.stop();
    await this.worker.close();
  }

  onApplicationShutdown(): Promise<void> {
    return this.producer.close();
  }

  /** Asks the relay for a run now (rows that are already due were just written). */
  kick(): void {
    this.relay.kick();
  }

  /** Resolves when everything due now has been handed to the queue (tests). */
  drain(): Promise<void> {
    return this.relay.drain();
  }
}

/**
 * Declares a lane: an outbox table relayed into a BullMQ queue and worked off by one processor.
 * Returns the providers to list in the owning module: the processor, the lane's producer, relay
 * and worker, and its handle (inject it with `@InjectLane(queue)`). The app's module provides
 * `Sql` (libs/database) and `RedisConfig` (libs/server's CoreModule).
 */
export function registerLane<Row, Item extends LaneItem>(lane: LaneDeclaration<Row, Item>): Provider[] {
  const t = tokens(lane.queue);
  return [
    lane.processor,
    { provide: t.settings, inject: lane.inject ?? [], useFactory: lane.settings },
    {
      provide: t.producer,
      inject: [RedisConfig],
      useFactory: (redis: RedisConfig) => new QueueProducer<LaneJob<Item>>(lane.queue, queueConnection(redis)),
    },
    {
      provide: t.relay,
      inject: [Sql, t.producer, t.settings],
      useFactory: (db: Sql, producer: QueueProducer<LaneJob<Item>>, settings: LaneSettings<Row, Item>) =>
        new OutboxRelay(db, producer, { ...settings, job: lane.job }),
    },
    {
      provide: t.worker,
      inject: [lane.processor, t.relay],
      useFactory: (processor: LaneProcessor<Item>, relay: OutboxRelay<Row, Item>) => new LaneWorker(lane.queue, processor, relay),
    },
    {
      provide: t.lane,
      inject: [RedisConfig, t.settings, t.producer, t.relay, t.worker],
      useFactory: (
        redis: RedisConfig,
        settings: LaneSettings<Row, Item>,
        producer: QueueProducer<LaneJob<Item>>,
        relay: OutboxRelay<Row, Item>,
        worker: LaneWorker<Row, Item>,
      ) => new QueueLane(lane.queue, producer, relay, worker, queueConnection(redis), settings),
    },
  ];
}
