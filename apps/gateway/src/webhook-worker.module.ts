import { Module, type DynamicModule } from '@nestjs/common';
import { gatewayFoundation } from './gateway.foundation';

/**
 * What runs with WEBHOOK_WORKERS=only: the delivery workers and the outbox relay, with
 * /health and /metrics and no API, so Kubernetes scales delivery apart from the API.
 * The sandbox's status and review timers, scheduled sends and the idempotency-key purge stay in the API
 * process: they belong to the requests it took. `trustedCertificates` as in gatewayModule.
 */
export function gatewayWebhookWorkerModule(options: { trustedCertificates?: string[] } = {}): DynamicModule {
  return {
    module: GatewayWebhookWorkerRootModule,
    imports: gatewayFoundation('gateway-webhooks', options.trustedCertificates),
  };
}

@Module({})
class GatewayWebhookWorkerRootModule {}

@Module({ imports: [gatewayWebhookWorkerModule()] })
export class GatewayWebhookWorkerModule {}
