import { loadConfig } from '@app/config';
import { rootModuleFor } from '@app/queue';
import { bootstrap } from '@app/server';
import { WebhookServiceConfig } from '@app/webhooks';
import { AppModule } from './app.module';
import { GATEWAY_VERSION } from './gateway.foundation';
import { GatewayWebhookWorkerModule } from './webhook-worker.module';

/** Starts the gateway (or, with `migrate`, only migrates its schema). */
export function serve(): Promise<void> {
  return bootstrap(() => rootModuleFor(loadConfig(WebhookServiceConfig).WEBHOOK_WORKERS, { api: AppModule, workers: GatewayWebhookWorkerModule }), {
    name: 'gateway',
    docs: {
      title: 'Messaging gateway',
      description: 'Sends every message kind through the chat network.',
      version: GATEWAY_VERSION,
    },
  });
}
