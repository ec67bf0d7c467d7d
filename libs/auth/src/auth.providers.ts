import type { Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { BaseServiceConfig } from '@app/config';
import { AuthGuard } from './auth.guard';
import { AUTH_OPTIONS, type AuthOptions } from './auth.options';
import type { CredentialForm } from './credentials';

/**
 * Registers the global guard for the header forms a service accepts, with the rate
 * limits from its settings. The app provides CREDENTIAL_VERIFIER; without one every
 * guarded route answers 401.
 */
export function authProviders(forms: CredentialForm[]): Provider[] {
  return [
    {
      provide: AUTH_OPTIONS,
      inject: [BaseServiceConfig],
      useFactory: (config: BaseServiceConfig): AuthOptions => ({
        forms,
        limitPerMinute: config.RATE_LIMIT_PER_MINUTE,
        authLimitPerMinute: config.RATE_LIMIT_AUTH_PER_MINUTE,
      }),
    },
    { provide: APP_GUARD, useClass: AuthGuard },
  ];
}
