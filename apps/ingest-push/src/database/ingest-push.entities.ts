import { pushEntities } from '../push/push.entities';
import { salesEntities } from '../sales/sales.entities';

export const INGEST_PUSH_SCHEMA = 'ingest_push';

/** Every entity of the app, one line per feature. */
export const ingestPushEntities = [
  ...salesEntities,
  ...pushEntities,
];
