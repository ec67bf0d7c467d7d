import { PushBatchEntity } from './push-batch.entity';
import { PushInvalidDeviceEntity } from './push-invalid-device.entity';
import { PushItemEntity } from './push-item.entity';
import { PushSettingsEntity } from './push-settings.entity';
import { PushTokenEntity } from './push-token.entity';

export const pushEntities = [PushTokenEntity, PushBatchEntity, PushItemEntity, PushInvalidDeviceEntity, PushSettingsEntity];
