import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_SCOPES = 'auth:scopes';
export const RATE_LIMIT_BUCKET = 'auth:bucket';
export const CREDENTIAL_SOURCES = 'auth:sources';

/** Opts a route out of authentication and rate limiting (health, docs). Everything else is guarded. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/** Scopes the route needs; the app's `AuthPolicy` decides what holding them means. */
export const RequireScopes = (...scopes: string[]): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_SCOPES, scopes);

/** Counts the route against the stricter authentication-endpoint limit instead of the general one. */
export const AuthEndpoint = (): MethodDecorator & ClassDecorator => SetMetadata(RATE_LIMIT_BUCKET, 'auth');

/** The credential sources (by name, tried in order) this route accepts instead of the app's defaults. */
export const AcceptCredentials = (...sources: string[]): MethodDecorator & ClassDecorator => SetMetadata(CREDENTIAL_SOURCES, sources);
