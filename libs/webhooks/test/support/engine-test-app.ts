import { Module, type Type } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';

import { createTestApp, type TestApp } from '@app/testkit';
import { WebhookServiceConfig } from '../../src/webhook.config';
import type { WebhookEngineOptions } from '../../src/webhook-engine.options';
import { WebhooksModule } from '../../src/webhooks.module';
import { webhookEntities, webhookMigrations } from '../../src';

/**
 * The smallest app that uses the engine: config, database (in a schema of its own, so
 * nothing depends on a schema being called `docstore`), Redis, and WebhooksModule with
 * the given service options. No API: tests drive the engine's services directly.
 */
export function startEngineApp(options: WebhookEngineOptions, schema: string, env: Record<string, string> = {}): Promise<TestApp> {
  @Module({
    imports: [
      CoreModule.forRoot({ service: 'webhook-engine-test', version: '0', settings: [WebhookServiceConfig] }),
      DatabaseModule.forRoot({ schema, entities: webhookEntities, migrations: webhookMigrations }),
      WebhooksModule.forRoot(options),
    ],
  })
  class EngineTestModule {}
  return createTestApp(EngineTestModule as Type, {
    WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
    WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
    WEBHOOK_RELAY_INTERVAL_MS: '100',
    WEBHOOK_CACHE_SECONDS: '0',
    ...env,
  });
}

export { eventually } from '@app/testkit';
