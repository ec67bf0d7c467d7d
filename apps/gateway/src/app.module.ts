import { Module } from '@nestjs/common';
import { authProviders } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
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
import { GatewayWebhooksModule } from './webhooks/gateway-webhooks.module';

export const GATEWAY_VERSION = '0.1.0';

@Module({
  imports: [
    CoreModule.forRoot({ service: 'gateway', version: GATEWAY_VERSION, settings: GATEWAY_SETTINGS, defaults: GATEWAY_DEFAULTS }),
    DatabaseModule.forRoot({ schema: GATEWAY_SCHEMA, entities: gatewayEntities, migrations: gatewayMigrations }),
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
})
export class AppModule {}
