import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

export interface TestCertificates {
  /** A CA, and a certificate for 127.0.0.1 that it signed. */
  ca: string;
  signed: { key: string; cert: string };
  /** A certificate for 127.0.0.1 that signed itself. */
  selfSigned: { key: string; cert: string };
}

/** Makes the certificates with the openssl command line, in a directory removed afterwards. */
export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'engine-tls-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  try {
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=engine test CA');
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1');
    ssl('x509', '-req', '-in', 'srv.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'srv.crt', '-days', '2', '-extfile', 'san.ext');
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'self.key', '-out', 'self.crt', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1');
    const read = (name: string) => readFileSync(join(dir, name), 'utf8');
    return { ca: read('ca.crt'), signed: { key: read('srv.key'), cert: read('srv.crt') }, selfSigned: { key: read('self.key'), cert: read('self.crt') } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Polls `check` until it returns a value (not undefined); Jest's timeout bounds the wait. */
export async function eventually<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}
