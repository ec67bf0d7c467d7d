import 'reflect-metadata';
import { loadConfig } from '@app/config';
import { bootstrap } from '@app/server';
import { WebhookServiceConfig } from '@app/webhooks';
import { AppModule, GATEWAY_VERSION } from './app.module';
import { GatewayWebhookWorkerModule } from './webhook-worker.module';

void bootstrap(() => (loadConfig(WebhookServiceConfig).WEBHOOK_WORKERS === 'only' ? GatewayWebhookWorkerModule : AppModule), {
  title: 'Messaging gateway',
  description: 'Sends every message kind through the chat network.',
  version: GATEWAY_VERSION,
});
