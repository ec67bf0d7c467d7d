import { webhookEntities } from '@app/webhooks';
import { AccountEntity } from '../accounts/account.entity';
import { ApiKeyEntity } from '../accounts/api-key.entity';
import { PhoneEntity } from '../accounts/phone.entity';
import { MediaEntity } from '../media/media.entity';
import { IdempotencyKeyEntity } from '../messages/idempotency-key.entity';
import { MessageStatusEntity } from '../messages/message-status.entity';
import { MessageEntity } from '../messages/message.entity';
import { InboundEventEntity } from '../notifications/inbound-event.entity';
import { ProfileEntity } from '../sandbox/profile.entity';
import { TemplateEntity } from '../templates/template.entity';

export const gatewayEntities = [
  AccountEntity,
  PhoneEntity,
  ApiKeyEntity,
  MessageEntity,
  MessageStatusEntity,
  IdempotencyKeyEntity,
  MediaEntity,
  TemplateEntity,
  ProfileEntity,
  InboundEventEntity,
  ...webhookEntities,
];
