import { Module } from '@nestjs/common';
import { TokenVerifier } from './token-verifier.service';
import { TokensController } from './tokens.controller';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

@Module({
  controllers: [TokensController],
  providers: [TokensRepository, TokensService, TokenVerifier],
  exports: [TokenVerifier, TokensService, TokensRepository],
})
export class TokensModule {}
