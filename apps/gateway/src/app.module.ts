import { Module } from '@nestjs/common';
import { authProviders } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { GATEWAY_DEFAULTS } from './config/gateway.config';

export const GATEWAY_VERSION = '0.1.0';

/** Boots with health, logging, the error filter and the deny-by-default guard; its features arrive in later issues. */
@Module({
  imports: [
    CoreModule.forRoot({ service: 'gateway', version: GATEWAY_VERSION, defaults: GATEWAY_DEFAULTS }),
    DatabaseModule.forRoot({ schema: 'gateway', entities: [], migrations: [] }),
  ],
  // No credential sources yet: every guarded route answers 401 until a feature registers its store.
  providers: [...authProviders({ sources: {} })],
})
export class AppModule {}
