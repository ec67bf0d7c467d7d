import { AuditConfig, AuditLogEntity, AuditModule } from '@app/audit';
import type { SettingDefaults } from '@app/config';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { WebhookServiceConfig, WebhooksModule, webhookEntities } from '@app/webhooks';
import { AccountEntity } from './accounts/account.entity';
import { AccountsConfig } from './accounts/accounts.config';
import { ApiKeyEntity } from './accounts/api-key.entity';
import { PhoneEntity } from './accounts/phone.entity';
import { CloudConfig } from './cloud/cloud.config';
import { ConversationEntity } from './conversations/conversation.entity';
import { ConversationsConfig } from './conversations/conversations.config';
import { InboundMessageEntity } from './conversations/inbound-message.entity';
import { OptOutKeywordsEntity } from './conversations/opt-out-keywords.entity';
import { OptOutEntity } from './conversations/opt-out.entity';
import { GATEWAY_SCHEMA } from './database/gateway.schema';
import { gatewayMigrations } from './database/gateway.migrations';
import { MediaEntity } from './media/media.entity';
import { IdempotencyKeyEntity } from './messages/idempotency-key.entity';
import { MessageStatusEntity } from './messages/message-status.entity';
import { MessageEntity } from './messages/message.entity';
import { MessagesConfig } from './messages/messages.config';
import { ScheduledMessageEntity } from './messages/scheduled-message.entity';
import { NetworkConfig } from './network/network.config';
import { InboundEventEntity } from './notifications/inbound-event.entity';
import { NotificationsConfig } from './notifications/notifications.config';
import { PricingConfig } from './pricing/pricing.config';
import { ProfileEntity } from './sandbox/profile.entity';
import { SandboxConfig } from './sandbox/sandbox.config';
import { TemplateEntity } from './templates/template.entity';
import { gatewayWebhookEngine } from './webhooks/gateway-webhook-engine';
import { GatewayWebhooksConfig } from './webhooks/gateway-webhooks.config';

export const GATEWAY_VERSION = '0.1.0';

/** Each feature's settings class, one per line, validated at start beside the core ones (server, database, Redis, rate limits, bodies). */
export const GATEWAY_SETTINGS = [
  NetworkConfig,
  CloudConfig,
  SandboxConfig,
  AccountsConfig,
  MessagesConfig,
  PricingConfig,
  ConversationsConfig,
  NotificationsConfig,
  GatewayWebhooksConfig,
  WebhookServiceConfig,
  AuditConfig,
];

/** The gateway's defaults for shared settings. */
export const GATEWAY_DEFAULTS: SettingDefaults = { PORT: 3002, REDIS_PREFIX: 'gateway:' };

/** Every entity of the app, one line per feature. */
export const GATEWAY_ENTITIES = [
  AccountEntity,
  PhoneEntity,
  ApiKeyEntity,
  MessageEntity,
  MessageStatusEntity,
  ScheduledMessageEntity,
  IdempotencyKeyEntity,
  MediaEntity,
  TemplateEntity,
  ProfileEntity,
  InboundEventEntity,
  ConversationEntity,
  InboundMessageEntity,
  OptOutEntity,
  OptOutKeywordsEntity,
  ...webhookEntities,
  AuditLogEntity,
];

/**
 * What the API and the worker-only process both stand on: validated settings, logs, Redis and
 * rate limits (CoreModule, as `service`), the gateway's schema, and the webhook engine, whose
 * deliveries trust `trustedCertificates` besides the system's CAs (tests bring their own).
 */
export function gatewayFoundation(service: string, trustedCertificates?: string[]) {
  return [
    CoreModule.forRoot({ service, version: GATEWAY_VERSION, settings: GATEWAY_SETTINGS, defaults: GATEWAY_DEFAULTS }),
    DatabaseModule.forRoot({ schema: GATEWAY_SCHEMA, entities: GATEWAY_ENTITIES, migrations: gatewayMigrations }),
    WebhooksModule.forRoot(gatewayWebhookEngine(trustedCertificates)),
    AuditModule,
  ];
}
