import { Module } from '@nestjs/common';
import { authProviders } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { INGEST_PUSH_DEFAULTS } from './config/ingest-push.config';

export const INGEST_PUSH_VERSION = '0.1.0';

/** Boots with health, logging, the error filter and the deny-by-default guard; its features arrive in later issues. */
@Module({
  imports: [
    CoreModule.forRoot({ service: 'ingest-push', version: INGEST_PUSH_VERSION, defaults: INGEST_PUSH_DEFAULTS }),
    DatabaseModule.forRoot({ schema: 'ingest_push', entities: [], migrations: [] }),
  ],
  // No credential sources yet: every guarded route answers 401 until a feature registers its store.
  providers: [...authProviders({ sources: {} })],
})
export class AppModule {}
