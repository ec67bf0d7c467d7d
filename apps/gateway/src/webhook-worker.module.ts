import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { WebhooksModule } from '@app/webhooks';
import { GATEWAY_VERSION } from './app.module';
import { GATEWAY_DEFAULTS, GATEWAY_SETTINGS } from './config/gateway.config';
import { GATEWAY_SCHEMA, gatewayEntities } from './database/gateway.entities';
import { gatewayMigrations } from './database/gateway.migrations';
import { gatewayWebhookEngine } from './webhooks/gateway-webhook-engine';

/**
 * What runs with WEBHOOK_WORKERS=only: the delivery workers and the outbox relay, with
 * /health and /metrics and no API, so Kubernetes scales delivery apart from the API.
 * The sandbox's status and review timers and the idempotency-key purge stay in the API
 * process: they belong to the requests it took. `trustedCertificates` as in gatewayModule.
 */
export function gatewayWebhookWorkerModule(options: { trustedCertificates?: string[] } = {}): DynamicModule {
  return {
    module: GatewayWebhookWorkerRootModule,
    imports: [
      CoreModule.forRoot({ service: 'gateway-webhooks', version: GATEWAY_VERSION, settings: GATEWAY_SETTINGS, defaults: GATEWAY_DEFAULTS }),
      DatabaseModule.forRoot({ schema: GATEWAY_SCHEMA, entities: gatewayEntities, migrations: gatewayMigrations }),
      WebhooksModule.forRoot(gatewayWebhookEngine(options.trustedCertificates)),
    ],
  };
}

@Module({})
class GatewayWebhookWorkerRootModule {}

@Module({ imports: [gatewayWebhookWorkerModule()] })
export class GatewayWebhookWorkerModule {}
