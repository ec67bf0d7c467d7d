import type { Platform } from './push-payload';

/** One BullMQ queue per platform, so one provider's outage never holds the other's pushes. */
export const PUSH_QUEUES: Record<Platform, string> = { android: 'push-android', ios: 'push-ios', web: 'push-web' };
/** The only job of both queues: one attempt of each of up to PUSH_ITEMS_PER_JOB pushes of one account. */
export const SEND_JOB = 'send';

/** One push's attempt, as a `send` job carries it. */
export interface SendItem {
  id: string;
  attempt: number;
  /** The trace context of the request that accepted the push (LaneItem.trace). */
  trace?: string | null;
}

/** The platform whose lane a queue is. */
export function platformOf(queue: string): Platform {
  const platform = (Object.keys(PUSH_QUEUES) as Platform[]).find((p) => PUSH_QUEUES[p] === queue);
  if (!platform) throw new Error(`no push lane is called ${queue}`);
  return platform;
}
