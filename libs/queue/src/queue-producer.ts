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

/**
 * The producer side of one BullMQ queue. Adding fails fast while Redis is away, so a
 * caller inside a PostgreSQL transaction rolls back and keeps its rows. Jobs carry the
 * work only: PostgreSQL is the record, so completed jobs are removed.
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
  getJobCounts(...states: JobType[]): Promise<Record<string, number>> {
    return this.queue.getJobCounts(...states);
  }

  /** The data of every job still to run or running, page by page. */
  async *liveJobs(): AsyncGenerator<T> {
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

  async close(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    // BullMQ leaves a connection it was given open.
    this.redis.disconnect();
  }
}
