import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from './principal';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_SCOPES = 'auth:scopes';
export const RATE_LIMIT_BUCKET = 'auth:bucket';

/** Opts a route out of authentication and rate limiting (health, docs). Everything else is guarded. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/** Every listed scope is required. */
export const RequireScopes = (...scopes: string[]): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_SCOPES, scopes);

/** Counts the route against the stricter authentication-endpoint limit instead of the general one. */
export const AuthEndpoint = (): MethodDecorator & ClassDecorator => SetMetadata(RATE_LIMIT_BUCKET, 'auth');

/** The authenticated principal of the request. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<Request>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a public route');
  return principal;
});
