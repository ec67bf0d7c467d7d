import { Module } from '@nestjs/common';
import { CREDENTIAL_VERIFIER } from '@app/auth';
import { TokenVerifier } from './token-verifier.service';
import { TokensController } from './tokens.controller';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

@Module({
  controllers: [TokensController],
  providers: [TokensRepository, TokensService, TokenVerifier, { provide: CREDENTIAL_VERIFIER, useExisting: TokenVerifier }],
  exports: [CREDENTIAL_VERIFIER, TokensService],
})
export class TokensModule {}
