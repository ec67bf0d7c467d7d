// As in main.ts: the config classes' design:type metadata (used to convert "8080" to 8080)
// is only recorded when reflect-metadata is loaded before them.
import 'reflect-metadata';
import { generateEncryptionKeys } from '@app/secrets';
import { CORE_SETTINGS } from '@app/server';
import { describeServiceBasics } from '@app/testkit';
import { AppModule } from '../src/app.module';
import { GATEWAY_DEFAULTS, GATEWAY_SETTINGS } from '../src/gateway.foundation';

describeServiceBasics({
  name: 'gateway',
  port: 3002,
  appModule: AppModule,
  settings: [...CORE_SETTINGS, ...GATEWAY_SETTINGS],
  defaults: GATEWAY_DEFAULTS,
  requiredSettings: { ENCRYPTION_KEYS: generateEncryptionKeys() },
});
