import { Module } from '@nestjs/common';
import { authProviders, CredentialForm } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { AccountsModule } from './accounts/accounts.module';
import { GatewayConfig } from './config/gateway.config';
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
    CoreModule.forRoot({ service: 'gateway', version: GATEWAY_VERSION, config: GatewayConfig }),
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
  providers: [...authProviders([CredentialForm.ApiKeyHeader])],
})
export class AppModule {}
