import { Module } from '@nestjs/common';
import { authProviders, CredentialForm } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { GatewayConfig } from './config/gateway.config';

export const GATEWAY_VERSION = '0.1.0';

/** Boots with health, logging, the error filter and the deny-by-default guard; its features arrive in later issues. */
@Module({
  imports: [
    CoreModule.forRoot({ service: 'gateway', version: GATEWAY_VERSION, config: GatewayConfig }),
    DatabaseModule.forRoot({ schema: 'gateway', entities: [], migrations: [] }),
  ],
  providers: [...authProviders([CredentialForm.ApiKeyHeader])],
})
export class AppModule {}
