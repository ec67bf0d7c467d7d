import { randomUUID } from 'node:crypto';
import { testRedis } from '@app/testkit';
import type { QueueConnection } from '../src/queue-connection';
import { QueueProducer } from '../src/queue-producer';
import { QueueWorker, requestIdOf, type Job, type JobOutcome } from '../src/queue-worker';

jest.setTimeout(30_000);

interface Work {
  n: number;
}

/** Fails the job whose n is 2; remembers the request id each job carried. */
class RecordingWorker extends QueueWorker<Work> {
  readonly requestIds: Array<string | undefined> = [];

  protected async process(job: Job<Work>): Promise<void> {
    this.requestIds.push(requestIdOf(job));
    if (job.data.n === 2) throw new Error('refused');
  }
}

describe('request ids and outcomes', () => {
  const conn: QueueConnection = { ...testRedis(), redisPrefix: `test:${process.env.TEST_RUN_ID}:${randomUUID().slice(0, 8)}:` };

  it('carries the request id in the job data, counts jobs by state, and tells listeners how each job ended', async () => {
    const producer = new QueueProducer<Work>('observed', conn, { attempts: 1 });
    const worker = new RecordingWorker('observed');
    const outcomes: JobOutcome[] = [];
    worker.onFinished((outcome) => outcomes.push(outcome));
    try {
      await producer.add([
        { name: 'work', data: { n: 1 }, jobId: 'j1', requestId: 'req-abc' },
        { name: 'work', data: { n: 2 }, jobId: 'j2' },
      ]);
      expect(await producer.getJobCounts('waiting', 'active')).toEqual({ waiting: 2, active: 0 });
      worker.start(conn, 1);
      while (outcomes.length < 2) await new Promise((r) => setTimeout(r, 20));
      expect(outcomes.sort()).toEqual(['completed', 'failed']);
      expect(worker.requestIds.sort()).toEqual(['req-abc', undefined]);
      expect(await producer.getJobCounts('waiting', 'failed')).toEqual({ waiting: 0, failed: 1 });
    } finally {
      await worker.close();
      await producer.close();
    }
  });

  it('tells since when the oldest job ready to run has waited, and nothing once none waits', async () => {
    const producer = new QueueProducer<Work>('aged', conn, { attempts: 1 });
    const worker = new RecordingWorker('aged');
    let finished = 0;
    worker.onFinished(() => finished++);
    try {
      expect(await producer.oldestWaitingSince()).toBeUndefined();
      const before = Date.now();
      await producer.add([{ name: 'work', data: { n: 1 }, jobId: 'first' }]);
      const between = Date.now();
      await producer.add([{ name: 'work', data: { n: 3 }, jobId: 'second' }]);
      // The first job's creation (BullMQ stamps it in this process), not the second's.
      const since = await producer.oldestWaitingSince();
      expect(since).toBeGreaterThanOrEqual(before);
      expect(since).toBeLessThanOrEqual(between);
      worker.start(conn, 1);
      while (finished < 2) await new Promise((r) => setTimeout(r, 20));
      expect(await producer.oldestWaitingSince()).toBeUndefined();
    } finally {
      await worker.close();
      await producer.close();
    }
  });
});
