import { Module, type DynamicModule } from '@nestjs/common';
import { authProviders } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { WebhooksModule } from '@app/webhooks';
import { AccountsModule } from './accounts/accounts.module';
import { GATEWAY_AUTH } from './accounts/gateway-auth';
import { GATEWAY_DEFAULTS, GATEWAY_SETTINGS } from './config/gateway.config';
import { GATEWAY_SCHEMA, gatewayEntities } from './database/gateway.entities';
import { gatewayMigrations } from './database/gateway.migrations';
import { GatewayErrorsModule } from './errors/gateway-errors.module';
import { MediaModule } from './media/media.module';
import { MessagesModule } from './messages/messages.module';
import { NotificationsModule } from './notifications/notifications.module';
import { ProfilesModule } from './profiles/profiles.module';
import { ProvidersModule } from './providers/providers.module';
import { TemplatesModule } from './templates/templates.module';
import { gatewayWebhookEngine } from './webhooks/gateway-webhook-engine';
import { GatewayWebhooksModule } from './webhooks/gateway-webhooks.module';

export const GATEWAY_VERSION = '0.1.0';

/** The whole gateway; `trustedCertificates` are CAs its webhook deliveries trust besides the system's (tests bring their own). */
export function gatewayModule(options: { trustedCertificates?: string[] } = {}): DynamicModule {
  return {
    module: GatewayRootModule,
    imports: [
      CoreModule.forRoot({ service: 'gateway', version: GATEWAY_VERSION, settings: GATEWAY_SETTINGS, defaults: GATEWAY_DEFAULTS }),
      DatabaseModule.forRoot({ schema: GATEWAY_SCHEMA, entities: gatewayEntities, migrations: gatewayMigrations }),
      WebhooksModule.forRoot(gatewayWebhookEngine(options.trustedCertificates)),
      GatewayErrorsModule,
      AccountsModule,
      GatewayWebhooksModule,
      NotificationsModule,
      ProvidersModule,
      MessagesModule,
      MediaModule,
      TemplatesModule,
      ProfilesModule,
    ],
    providers: [...authProviders(GATEWAY_AUTH)],
  };
}

@Module({})
class GatewayRootModule {}

@Module({ imports: [gatewayModule()] })
export class AppModule {}
