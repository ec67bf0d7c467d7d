import { Module } from '@nestjs/common';
import { AccountsRepository } from './accounts.repository';

/** The accounts that sales API keys and push tokens belong to. */
@Module({
  providers: [AccountsRepository],
  exports: [AccountsRepository],
})
export class AccountsModule {}
