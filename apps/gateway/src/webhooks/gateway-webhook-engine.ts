import type { WebhookEngineOptions } from '@app/webhooks';
import type { NetworkNotification } from '../network/network-notification';

/** An outbox event's data: the phone that owns it and the notification, as recorded by NetworkNotificationOutbox. */
export interface RecordedNotification {
  owner: string;
  notification: NetworkNotification;
}

/**
 * How the gateway uses the webhook engine: webhooks are owned by a business phone (its
 * row id), the body is the network's own notification, unsigned (receivers authenticate
 * deliveries by their custom headers), https only with verified certificates.
 * `trustedCertificates` adds CAs besides the system's (tests use their own).
 */
export function gatewayWebhookEngine(trustedCertificates: string[] = []): WebhookEngineOptions {
  return {
    envelope: (event) => JSON.stringify((event.data as RecordedNotification).notification),
    allowHttpForAllowedTargets: false,
    trustedCertificates,
    urlField: 'endpoint',
  };
}
