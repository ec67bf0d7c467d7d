import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { PushController } from './push.controller';
import { PushStatsController } from './push-stats.controller';
import { PushDeliveryModule } from './push-delivery.module';
import { PushService } from './push.service';
import { PushTokenVerifier } from './push-token-verifier.service';
import { PushTokensRepository } from './push-tokens.repository';

/** Bulk push: POST/GET/DELETE /api/pushm/bulk, push tokens, and (PUSH_WORKERS=inline) the senders. */
@Module({
  imports: [AccountsModule, PushDeliveryModule],
  controllers: [PushController, PushStatsController],
  providers: [PushService, PushTokensRepository, PushTokenVerifier],
  exports: [PushTokenVerifier],
})
export class PushModule {}
