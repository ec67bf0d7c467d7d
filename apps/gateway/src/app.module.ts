import { GatewayAuditModule } from './audit/audit.module';
import { Module, type DynamicModule } from '@nestjs/common';
import { authProviders } from '@app/auth';
import { AccountsModule } from './accounts/accounts.module';
import { ChatProviderModule } from './chat-provider.module';
import { ConversationsModule } from './conversations/conversations.module';
import { GATEWAY_AUTH } from './accounts/gateway-auth';
import { GatewayErrorsModule } from './errors/gateway-errors.module';
import { gatewayFoundation } from './gateway.foundation';
import { MediaModule } from './media/media.module';
import { MessagesModule } from './messages/messages.module';
import { NotificationsModule } from './notifications/notifications.module';
import { ProfilesModule } from './profiles/profiles.module';
import { TemplatesModule } from './templates/templates.module';
import { GatewayWebhooksModule } from './webhooks/gateway-webhooks.module';

/** The whole gateway; `trustedCertificates` are CAs its webhook deliveries trust besides the system's (tests bring their own). */
export function gatewayModule(options: { trustedCertificates?: string[] } = {}): DynamicModule {
  return {
    module: GatewayRootModule,
    imports: [
      ...gatewayFoundation('gateway', options.trustedCertificates),
      GatewayErrorsModule,
      AccountsModule,
      GatewayWebhooksModule,
      NotificationsModule,
      ChatProviderModule,
      MessagesModule,
      ConversationsModule,
      MediaModule,
      TemplatesModule,
      ProfilesModule,
      GatewayAuditModule,
    ],
    providers: [...authProviders(GATEWAY_AUTH)],
  };
}

@Module({})
class GatewayRootModule {}

@Module({ imports: [gatewayModule()] })
export class AppModule {}
