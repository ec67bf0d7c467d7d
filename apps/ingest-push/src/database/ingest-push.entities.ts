import { AccountEntity } from '../accounts/account.entity';
import { pushEntities } from '../push/push.entities';
import { salesEntities } from '../sales/sales.entities';

/** Every entity of the app, one line per feature. */
export const ingestPushEntities = [
  AccountEntity,
  ...salesEntities,
  ...pushEntities,
];
