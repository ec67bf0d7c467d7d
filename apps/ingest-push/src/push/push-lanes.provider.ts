import type { Provider } from '@nestjs/common';
import { laneToken, registerLane, type QueueLane } from '@app/queue';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';
import { PushConfig } from './push.config';
import { PLATFORMS, type Platform } from './push-payload';
import { PUSH_QUEUES, SEND_JOB, type SendItem } from './push-queue';
import { PushSendProcessor } from './push-send.processor';

/** Rows a relay moves per run (one transaction). */
const RELAY_BATCH = 2000;

/** What the relay claims of a push_items row. */
export interface RelayedPush {
  id: string;
  attempts: number;
  account_id: string;
  trace_context: string | null;
}

export type PushLane = QueueLane<RelayedPush, SendItem>;

/** The tokens of the push lanes' handles (the API kicks them after a batch with pushes due now). */
export const PUSH_LANES: string[] = PLATFORMS.map((platform) => laneToken(PUSH_QUEUES[platform]));

function pushLane(platform: Platform): Provider[] {
  return registerLane<RelayedPush, SendItem>({
    queue: PUSH_QUEUES[platform],
    job: SEND_JOB,
    processor: PushSendProcessor,
    inject: [PushConfig],
    settings: (config: PushConfig) => ({
      table: `${INGEST_PUSH_SCHEMA}.push_items`,
      keyColumn: 'account_id',
      keys: `SELECT id AS key FROM ${INGEST_PUSH_SCHEMA}.accounts`,
      where: `t.platform = '${platform}'`,
      returning: 't.id, t.attempts, t.account_id, t.trace_context',
      key: (row) => row.account_id,
      item: (row) => ({ id: row.id, attempt: row.attempts + 1, trace: row.trace_context }),
      itemsPerJob: config.PUSH_ITEMS_PER_JOB,
      perKey: config.PUSH_MAX_QUEUED_PER_ACCOUNT,
      batch: RELAY_BATCH,
      intervalMs: config.PUSH_RELAY_INTERVAL_MS,
      sweepMs: config.PUSH_SWEEP_SECONDS * 1000,
      workers: config.PUSH_WORKERS,
      concurrency: config.PUSH_CONCURRENCY,
      lockMs: config.PUSH_WORKER_LOCK_SECONDS * 1000,
    }),
  });
}

/**
 * Due pushes from PostgreSQL to the providers, one lane per platform (libs/queue): push_items is
 * the outbox, the account is the fairness and grouping key, PUSH_ITEMS_PER_JOB pushes to a job.
 * The relays run in every mode; the send workers where PUSH_WORKERS says (inline or only).
 */
export function pushLanes(): Provider[] {
  return PLATFORMS.flatMap(pushLane);
}
