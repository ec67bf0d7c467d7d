import { Global, Module } from '@nestjs/common';
import { CREDENTIAL_VERIFIER } from '@app/auth';
import { AccountsRepository } from './accounts.repository';
import { ApiKeyVerifier } from './api-key.verifier';
import { PhonesService } from './phones.service';

/** API keys and the business phones they act for. */
@Global()
@Module({
  providers: [AccountsRepository, ApiKeyVerifier, PhonesService, { provide: CREDENTIAL_VERIFIER, useExisting: ApiKeyVerifier }],
  exports: [AccountsRepository, ApiKeyVerifier, PhonesService, CREDENTIAL_VERIFIER],
})
export class AccountsModule {}
