import type { Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { CALLER_HEADERS } from '@app/errors';
import { AuthGuard } from './auth.guard';
import { AUTH_OPTIONS, type AuthOptions } from './auth.options';
import { RequestBodyReader } from './request-body.reader';

/**
 * Registers the global request gate with the app's credential sources and policy.
 * Each source's store must be a provider somewhere in the app; the settings come from
 * `RateLimitConfig` and `RequestBodyConfig` (CoreModule provides both).
 */
export function authProviders(options: AuthOptions): Provider[] {
  return [
    { provide: AUTH_OPTIONS, useValue: options },
    RequestBodyReader,
    ...(options.policy ? [options.policy] : []),
    AuthGuard,
    { provide: APP_GUARD, useExisting: AuthGuard },
    // Unknown-route 404s carry the caller's rate-limit headers too.
    { provide: CALLER_HEADERS, useExisting: AuthGuard },
  ];
}
