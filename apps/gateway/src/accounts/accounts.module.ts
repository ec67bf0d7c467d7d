import { Global, Module } from '@nestjs/common';
import { AccountsRepository } from './accounts.repository';
import { ApiKeyStore } from './api-key.store';
import { PhonesService } from './phones.service';

/** API keys and the business phones they act for. */
@Global()
@Module({
  providers: [AccountsRepository, ApiKeyStore, PhonesService],
  exports: [AccountsRepository, ApiKeyStore, PhonesService],
})
export class AccountsModule {}
