import { CommandLine } from '@app/database';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';
import { ingestPushMigrations } from '../database/ingest-push.migrations';
import { APIKEY_COMMAND } from './apikey.command';
import { PUSH_TOKEN_COMMAND } from './push-token.command';

/** ingest-push's commands (`node apps/ingest-push/src/main.js apikey|push-token …`, `npm run -s ingest:apikey|push:token -- …`). */
export const INGEST_PUSH_CLI = new CommandLine({
  program: 'node apps/ingest-push/src/main.js',
  schema: INGEST_PUSH_SCHEMA,
  migrations: ingestPushMigrations,
  dataSource: async (url) => (await import('../database/ingest-push.data-source')).createIngestPushDataSource(url),
  commands: [APIKEY_COMMAND, PUSH_TOKEN_COMMAND],
});
