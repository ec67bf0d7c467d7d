import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { WebhooksModule } from '@app/webhooks';
import { GATEWAY_DEFAULTS, GATEWAY_SETTINGS } from './config/gateway.config';
import { GATEWAY_SCHEMA, gatewayEntities } from './database/gateway.entities';
import { gatewayMigrations } from './database/gateway.migrations';
import { gatewayWebhookEngine } from './webhooks/gateway-webhook-engine';

export const GATEWAY_VERSION = '0.1.0';

/**
 * What the API and the worker-only process both stand on: validated settings, logs, Redis and
 * rate limits (CoreModule, as `service`), the gateway's schema, and the webhook engine, whose
 * deliveries trust `trustedCertificates` besides the system's CAs (tests bring their own).
 */
export function gatewayFoundation(service: string, trustedCertificates?: string[]) {
  return [
    CoreModule.forRoot({ service, version: GATEWAY_VERSION, settings: GATEWAY_SETTINGS, defaults: GATEWAY_DEFAULTS }),
    DatabaseModule.forRoot({ schema: GATEWAY_SCHEMA, entities: gatewayEntities, migrations: gatewayMigrations }),
    WebhooksModule.forRoot(gatewayWebhookEngine(trustedCertificates)),
  ];
}
