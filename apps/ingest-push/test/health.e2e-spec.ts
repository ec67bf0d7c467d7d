// As in main.ts: the config classes' design:type metadata (used to convert "8080" to 8080)
// is only recorded when reflect-metadata is loaded before them.
import 'reflect-metadata';
import { CORE_SETTINGS } from '@app/server';
import { describeServiceBasics } from '@app/testkit';
import { AppModule } from '../src/app.module';
import { INGEST_PUSH_DEFAULTS } from '../src/ingest-push.foundation';

describeServiceBasics({ name: 'ingest-push', port: 3003, appModule: AppModule, settings: CORE_SETTINGS, defaults: INGEST_PUSH_DEFAULTS });
