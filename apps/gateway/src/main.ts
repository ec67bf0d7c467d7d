import 'reflect-metadata';
import { GATEWAY_CLI } from './cli/gateway.cli';

// A command (`main.js apikey …`) loads only what it needs; the service's modules load to serve.
void GATEWAY_CLI.main(process.argv.slice(2), async () => {
  const [{ loadConfig }, { bootstrap }, { WebhookServiceConfig }, { AppModule, GATEWAY_VERSION }, { GatewayWebhookWorkerModule }] = await Promise.all([
    import('@app/config'),
    import('@app/server'),
    import('@app/webhooks'),
    import('./app.module'),
    import('./webhook-worker.module'),
  ]);
  await bootstrap(() => (loadConfig(WebhookServiceConfig).WEBHOOK_WORKERS === 'only' ? GatewayWebhookWorkerModule : AppModule), {
    title: 'Messaging gateway',
    description: 'Sends every message kind through the chat network.',
    version: GATEWAY_VERSION,
  });
});
