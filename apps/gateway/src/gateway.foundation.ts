import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { WebhookServiceConfig, WebhooksModule } from '@app/webhooks';
import { GATEWAY_DEFAULTS, GatewayConfig } from './config/gateway.config';
import { gatewayEntities } from './database/gateway.entities';
import { GATEWAY_SCHEMA } from './database/gateway.schema';
import { gatewayMigrations } from './database/gateway.migrations';
import { gatewayWebhookEngine } from './webhooks/gateway-webhook-engine';

export const GATEWAY_VERSION = '0.1.0';

/**
 * The feature settings the gateway runs with, beside the core ones (server, database, Redis, rate limits, bodies).
 * Here rather than beside the app's config class: the commands load that class, not the webhook engine.
 */
export const GATEWAY_SETTINGS = [GatewayConfig, WebhookServiceConfig];

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
