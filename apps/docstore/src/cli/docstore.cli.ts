import { CommandLine } from '@app/database';
import { docstoreMigrations } from '../database/docstore.migrations';
import { DOCSTORE_SCHEMA } from '../database/docstore.schema';
import { TOKEN_COMMAND } from './token.command';

/** The docstore's commands (`node apps/docstore/src/main.js token …`, `npm run -s docstore:token -- …`). */
export const DOCSTORE_CLI = new CommandLine({
  program: 'node apps/docstore/src/main.js',
  schema: DOCSTORE_SCHEMA,
  migrations: docstoreMigrations,
  dataSource: async (url) => (await import('../database/docstore.data-source')).createDocstoreDataSource(url),
  commands: [TOKEN_COMMAND],
});
