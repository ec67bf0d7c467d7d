// An ingest-push API process for tests that kill it, read its log or measure its memory; settings come from the
// environment (INGEST_*, BODY_*, LOG_LEVEL), and the port it listens on goes to the parent. The parent may ask for
// a push token ({token: account}) and, when the process runs with --expose-gc, for a full garbage collection ('gc'),
// answered with its memory usage after it.
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { createTestApp } from '@app/testkit';
import { AccountsRepository } from '../../src/accounts/accounts.repository';
import { AppModule } from '../../src/app.module';
import { issuePushToken } from '../../src/push/push-token.issuer';
import { PushTokensRepository } from '../../src/push/push-tokens.repository';

const settings: Record<string, string> = {};
for (const [name, value] of Object.entries(process.env)) if (value !== undefined && /^(INGEST_|BODY_|LOG_LEVEL$)/.test(name)) settings[name] = value;

void createTestApp(AppModule, settings).then(async (t) => {
  await t.app.listen(0, '127.0.0.1');
  process.on('message', (message: unknown) => {
    if (message === 'gc') {
      (globalThis as { gc?: () => void }).gc?.();
      process.send?.({ gc: process.memoryUsage() });
    } else if (typeof message === 'object' && message !== null && 'token' in message) {
      const account = String(message.token);
      void issuePushToken(t.get(PushTokensRepository), t.get(AccountsRepository), account, 'test').then((token) => process.send?.({ token, account }));
    }
  });
  process.send?.({ port: (t.http.address() as AddressInfo).port });
});
