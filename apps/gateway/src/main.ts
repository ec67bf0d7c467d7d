import 'reflect-metadata';
import { loadConfig } from '@app/config';
import { rootModuleFor } from '@app/queue';
import { bootstrap } from '@app/server';
import { WebhookServiceConfig } from '@app/webhooks';
import { AppModule, GATEWAY_VERSION } from './app.module';
import { GatewayWebhookWorkerModule } from './webhook-worker.module';

void bootstrap(() => rootModuleFor(loadConfig(WebhookServiceConfig).WEBHOOK_WORKERS, { api: AppModule, workers: GatewayWebhookWorkerModule }), {
  title: 'Messaging gateway',
  description: 'Sends every message kind through the chat network.',
  version: GATEWAY_VERSION,
});
