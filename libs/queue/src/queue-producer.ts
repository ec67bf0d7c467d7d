import { Queue, type JobType } from 'bullmq';
import type { RedisClient } from '@app/redis';
import { ThrottledWarning } from '@app/observability';
import { onReady, producerRedis, queueAddress, type QueueConnection } from './queue-connection';

/** One job to add: its name, data and id (the id makes adding the same work twice a no-op). */
export interface NewJob<T> {
  name: string;
  data: T;
  jobId: string;
  /** The id of the request that caused the work (X-Request-Id), carried in the job's data as `requestId` so the worker's logs name it. */
  requestId?: string;
}

/** Every state in which a job is still to run or running. */
const LIVE_STATES: JobType[] = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'];
const PAGE = 1000;
/** How long a call waits for a connection that is being made (the producer's connectTimeout) before it fails. */
const READY_WAIT_MS = 2000;

/**
 * The producer side of one BullMQ queue. Adding fails fast while Redis is away, so a
 * caller inside a PostgreSQL transaction rolls back and keeps its rows. Jobs carry the
 * work only: PostgreSQL is the record, so completed jobs are removed.
 *
 * BullMQ itself waits for its connection to be ready before every command, however long Redis is
 * away: an outbox relay would hold its transaction's connection until Redis came back, and a
 * shutdown would wait for it. So every call here first waits at most READY_WAIT_MS for the
 * connection, then fails.
 */
export class QueueProducer<T> {
  protected readonly queue: Queue<T>;
  private readonly redis: RedisClient;
  private readonly failure: ThrottledWarning;

  constructor(
    readonly name: string,
    connection: QueueConnection,
    private readonly jobOptions: { attempts?: number; backoffMs?: number } = {},
  ) {
    this.failure = new ThrottledWarning(`Queue ${name}`);
    this.redis = producerRedis(connection);
    const address = queueAddress(connection, name);
    this.queue = new Queue<T>(address.name, { connection: this.redis, prefix: address.prefix });
    this.queue.on('error', (error) => this.failure.warn(`queue ${name}: ${error.message}`));
    this.redis.on('error', (error) => this.failure.warn(`queue ${name}: ${error.message}`));
  }

  async add(jobs: ReadonlyArray<NewJob<T>>): Promise<void> {
    if (jobs.length === 0) return;
    await this.connected();
    const { attempts = 5, backoffMs = 1000 } = this.jobOptions;
    await this.queue.addBulk(
      // BullMQ's generic job-name types are stricter than a plain string; the name is only a label here.
      jobs.map((job) => ({
        name: job.name as never,
        data: (job.requestId === undefined ? job.data : { ...job.data, requestId: job.requestId }) as never,
        opts: {
          jobId: job.jobId,
          removeOnComplete: true,
          removeOnFail: { count: 1000 },
          // Retries of the worker's own failures (e.g. PostgreSQL briefly away), not of the work's outcome.
          attempts,
          backoff: { type: 'exponential', delay: backoffMs },
        },
      })),
    );
  }

  /** Jobs by state (metrics and /health report the backlog). */
  async getJobCounts(...states: JobType[]): Promise<Record<string, number>> {
    await this.connected();
    return this.queue.getJobCounts(...states);
  }

  /**
   * Epoch milliseconds since which the oldest job ready to run has waited: its creation, or for a job
   * retried after a worker's failure its last start (BullMQ keeps no time of the move back to the queue).
   * Undefined when none waits. `/metrics` reports it as `queue_oldest_job_age_seconds`.
   */
  async oldestWaitingSince(): Promise<number | undefined> {
    await this.connected();
    // BullMQ adds to the head of `wait`, so ascending order starts with the oldest; `prioritized` is a sorted set.
    const jobs = await Promise.all([this.queue.getJobs(['wait'], 0, 0, true), this.queue.getJobs(['prioritized'], 0, 0, true)]);
    const since = jobs.flat().flatMap((job) => (job ? [Math.max(job.timestamp, job.processedOn ?? 0)] : []));
    return since.length === 0 ? undefined : Math.min(...since);
  }

  /** The data of every job still to run or running, page by page. */
  async *liveJobs(): AsyncGenerator<T> {
    await this.connected();
    for (const state of LIVE_STATES) {
      for (let start = 0; ; start += PAGE) {
        const jobs = await this.queue.getJobs([state], start, start + PAGE - 1, true);
        for (const job of jobs) if (job) yield job.data as T;
        if (jobs.length < PAGE) break;
      }
    }
  }

  /** Calls `ready` once Redis answers (at once if it does now), and again each time it answers after the connection was lost. */
  onReady(ready: () => void): void {
    onReady(this.redis, ready);
  }

  /** Resolves once the connection is ready, waiting at most READY_WAIT_MS; rejects otherwise. */
  private connected(): Promise<void> {
    if (this.redis.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const ready = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.redis.off('ready', ready);
        reject(new Error(`queue ${this.name}: Redis is not connected (${this.redis.status})`));
      }, READY_WAIT_MS);
      this.redis.once('ready', ready);
    });
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    // BullMQ leaves a connection it was given open.
    this.redis.disconnect();
  }
}
