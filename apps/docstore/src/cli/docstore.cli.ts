import { CommandLine } from '@app/database';
import { createDocstoreDataSource } from '../database/docstore.data-source';
import { DOCSTORE_SCHEMA } from '../database/docstore.entities';
import { TOKEN_COMMAND } from './token.command';

/** The docstore's commands (`node apps/docstore/src/main.js token …`, `npm run -s docstore:token -- …`). */
export const DOCSTORE_CLI = new CommandLine({
  program: 'node apps/docstore/src/main.js',
  schema: DOCSTORE_SCHEMA,
  dataSource: createDocstoreDataSource,
  commands: [TOKEN_COMMAND],
});
