import type { Provider } from '@nestjs/common';
import { registerLane, type LaneItem } from '@app/queue';
import { MessagesConfig } from './messages.config';
import { SCHEDULED_TABLE } from './scheduled-messages.repository';
import { ScheduledSendProcessor } from './scheduled-send.processor';

export const SCHEDULED_SEND_QUEUE = 'gateway-scheduled-sends';

/** Sends of one phone a job carries (sent concurrently, each claimed on its own). */
const ITEMS_PER_JOB = 25;
/** Rows one relay run moves, and at most queued per phone. */
const RELAY_BATCH = 2000;

/** What the relay claims of a scheduled_messages row. */
interface RelayedSend {
  id: string;
  attempts: number;
  phone_ref: string;
  trace_context: string | null;
}

/**
 * Scheduled sends (libs/queue): scheduled_messages is the outbox, due at `send_at`; the relay polls it every
 * SCHEDULED_POLL_MS, the phone is the fairness and grouping key. The workers run in every API process (they send
 * through the API's provider); a stopped process's due rows are relayed by the others, or by it when it is back.
 */
export function scheduledSendLane(): Provider[] {
  return registerLane<RelayedSend, LaneItem>({
    queue: SCHEDULED_SEND_QUEUE,
    job: 'send',
    processor: ScheduledSendProcessor,
    inject: [MessagesConfig],
    settings: (config: MessagesConfig) => ({
      table: SCHEDULED_TABLE,
      keyColumn: 'phone_ref',
      keys: `SELECT DISTINCT phone_ref AS key FROM ${SCHEDULED_TABLE} WHERE queued_at IS NULL AND next_attempt_at <= now()`,
      returning: 't.id, t.attempts, t.phone_ref, t.trace_context',
      key: (row) => row.phone_ref,
      item: (row) => ({ id: row.id, attempt: row.attempts + 1, trace: row.trace_context }),
      itemsPerJob: ITEMS_PER_JOB,
      perKey: RELAY_BATCH,
      batch: RELAY_BATCH,
      intervalMs: config.SCHEDULED_POLL_MS,
      sweepMs: 30_000,
      workers: 'inline',
      concurrency: config.SCHEDULED_CONCURRENCY,
    }),
  });
}
