import { PushAccountEntity } from '../push/push-account.entity';
import { PushBatchEntity } from '../push/push-batch.entity';
import { PushInvalidDeviceEntity } from '../push/push-invalid-device.entity';
import { PushItemEntity } from '../push/push-item.entity';
import { PushTokenEntity } from '../push/push-token.entity';

export const INGEST_PUSH_SCHEMA = 'ingest_push';

/** Every entity of the app, one per line. */
export const ingestPushEntities = [
  PushAccountEntity,
  PushTokenEntity,
  PushBatchEntity,
  PushItemEntity,
  PushInvalidDeviceEntity,
];
