import type { SqlRunner } from '@app/database';
import type { NetworkNotification } from './network-notification';

/**
 * Where notifications for registered webhooks go: recorded in the caller's transaction
 * (the outbox), delivered after commit. Implemented by the gateway's webhooks on the
 * shared delivery engine.
 */
export abstract class NotificationOutbox {
  /** Records `body` for every webhook of the phone subscribed to `type`; returns how many deliveries were recorded. */
  abstract record(tx: SqlRunner, phoneRef: string, type: string, body: NetworkNotification): Promise<number>;

  /** Call after the transaction committed. */
  abstract recorded(deliveries: number): void;
}
