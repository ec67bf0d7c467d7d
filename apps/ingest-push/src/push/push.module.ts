import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { PushController } from './push.controller';
import { PushStatsController } from './push-stats.controller';
import { PushDeliveryModule } from './push-delivery.module';
import { PushService } from './push.service';
import { PushSettingsController } from './push-settings.controller';
import { PushOpensController } from './push-opens.controller';
import { PushSettingsRepository } from './push-settings.repository';
import { PushSettingsService } from './push-settings.service';
import { PushTokenVerifier } from './push-token-verifier.service';
import { PushTokensRepository } from './push-tokens.repository';

/** Bulk push: POST/GET/DELETE /api/pushm/bulk, push tokens, and (PUSH_WORKERS=inline) the senders. */
@Module({
  imports: [AccountsModule, PushDeliveryModule],
  controllers: [PushController, PushStatsController, PushSettingsController, PushOpensController],
  providers: [PushService, PushSettingsService, PushSettingsRepository, PushTokensRepository, PushTokenVerifier],
  exports: [PushTokenVerifier],
})
export class PushModule {}
