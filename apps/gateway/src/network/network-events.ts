import type { PhoneContext } from './chat-provider';

export interface StatusChange {
  messageId: string;
  status: string;
  /** Unix seconds, as the network writes them. */
  timestamp: number;
  errors?: unknown[];
  /** How the network prices the message, as it reports it with the status. */
  pricing?: StatusPricing;
  /** The conversation the message opened or fell in, as the network reports it. */
  conversation?: StatusConversation;
}

/** A status's `pricing`, in the network's shape. `type` is the per-message pricing type (regular, free_customer_service, free_entry_point). */
export interface StatusPricing {
  billable: boolean;
  pricing_model: string;
  category: string;
  type?: string;
}

/** A status's `conversation`, in the network's shape. */
export interface StatusConversation {
  id: string;
  expiration_timestamp?: string;
  origin?: { type: string };
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

  /** Customers' messages to `phone` (the network's `messages` change value): each message id taken once, stored, forwarded. */
  abstract inboundMessages(phone: PhoneContext, value: Record<string, unknown> & { messages: { id: string }[] }): Promise<void>;

  /** A template's review result. */
  abstract templateStatus(phone: PhoneContext, templateId: string, event: string, reason: string | null): Promise<void>;
}
