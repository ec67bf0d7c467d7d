import type { Platform } from './push-payload';

/** One BullMQ queue per platform, so one provider's outage never holds the other's pushes. */
export const PUSH_QUEUES: Record<Platform, string> = { android: 'push-android', ios: 'push-ios' };
/** The only job of both queues: one attempt of each of up to PUSH_ITEMS_PER_JOB pushes. */
export const SEND_JOB = 'send';

export interface SendJobData {
  items: Array<{ id: string; attempt: number }>;
}

/** Named by its first item's attempt: the same attempts relayed twice make one job. */
export function sendJobId(data: SendJobData): string {
  const first = data.items[0];
  return `${first.id}-${first.attempt}`;
}
