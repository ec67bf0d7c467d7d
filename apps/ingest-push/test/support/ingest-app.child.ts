// An ingest-push API process for tests that kill it or read its log; settings come from the environment
// (INGEST_*, LOG_LEVEL), and the port it listens on goes to the parent.
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { createTestApp } from '@app/testkit';
import { AppModule } from '../../src/app.module';

const settings: Record<string, string> = {};
for (const [name, value] of Object.entries(process.env)) if (value !== undefined && /^(INGEST_|LOG_LEVEL$)/.test(name)) settings[name] = value;

void createTestApp(AppModule, settings).then(async (t) => {
  await t.app.listen(0, '127.0.0.1');
  process.send?.({ port: (t.http.address() as AddressInfo).port });
});
