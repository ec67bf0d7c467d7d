import type { PhoneContext } from './chat-provider';

export interface StatusChange {
  messageId: string;
  status: string;
  /** Unix seconds, as the network writes them. */
  timestamp: number;
  errors?: unknown[];
}

/**
 * What the network reports back to the gateway: the cloud through POST network/notifications,
 * the sandbox in process. Implemented by notifications/, which records each change once and
 * hands it to the phone's webhooks.
 */
export abstract class NetworkEvents {
  /** A message status; a repeated one is ignored. */
  abstract messageStatus(phone: PhoneContext, change: StatusChange): Promise<void>;

  /** A template's review result. */
  abstract templateStatus(phone: PhoneContext, templateId: string, event: string, reason: string | null): Promise<void>;
}
