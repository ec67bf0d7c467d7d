import type { PhoneContext } from './chat-provider';

export interface StatusChange {
  messageId: string;
  status: string;
  /** Unix seconds, as the network writes them. */
  timestamp: number;
  errors?: unknown[];
}

/** What became of a status: new, a repeat (nothing changes), or for a message the phone did not send (ignored). */
export type StatusOutcome = 'recorded' | 'repeated' | 'unknown';

/**
 * What the network reports back to the gateway: the cloud through POST network/notifications,
 * the sandbox in process. Implemented by notifications/, which records each change once and
 * hands it to the phone's webhooks.
 */
export abstract class NetworkEvents {
  /** A message status of a message `phone` sent; a repeated one, or one for another phone's message, changes nothing. */
  abstract messageStatus(phone: PhoneContext, change: StatusChange): Promise<StatusOutcome>;

  /** A template's review result. */
  abstract templateStatus(phone: PhoneContext, templateId: string, event: string, reason: string | null): Promise<void>;
}
