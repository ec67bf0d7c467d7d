import { Inject, Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { BadRequestException, ForbiddenException, TooManyRequestsException, UnauthenticatedException } from '@app/errors';
import { RateLimiter, type RateLimitResult } from '@app/rate-limit';
import type { Request, Response } from 'express';
import { IS_PUBLIC, RATE_LIMIT_BUCKET, REQUIRED_SCOPES } from './auth.decorators';
import { AUTH_OPTIONS, type AuthOptions } from './auth.options';
import { extractCredential } from './credentials';
import { CREDENTIAL_VERIFIER, type CredentialVerifier, type Principal } from './principal';
import { hasScope } from './scopes';
import { isUuid } from './uuid';

/**
 * The global guard: denies by default. In order: credential → per-address lockout
 * after too many failures → per-token rate limit → the path's client must be the
 * token's → required scopes. One Redis round trip per request.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  /** Addresses over the failure limit, until their window resets (ms). Saves a Redis read per request. */
  private readonly lockedOut = new Map<string, number>();
  private readonly rules = new WeakMap<object, RouteRules>();

  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
    @Inject(AUTH_OPTIONS) private readonly options: AuthOptions,
    @Optional() @Inject(CREDENTIAL_VERIFIER) private readonly verifier?: CredentialVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = this.routeRules(context);
    if (route.isPublic) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();

    const principal = await this.authenticate(req, res);
    const bucket = route.bucket;
    const limit = bucket === 'auth' ? this.options.authLimitPerMinute : this.options.limitPerMinute;
    this.enforce(res, await this.limiter.hit(bucket, principal.tokenId, limit));

    const client = stringParam(req, 'client');
    if (client !== undefined) {
      if (!isUuid(client)) throw new BadRequestException('The client in the path must be a UUID.');
      if (client.toLowerCase() !== principal.clientId) throw new ForbiddenException('This token does not act for this client.');
    }
    const target = { environment: stringParam(req, 'environment'), context: stringParam(req, 'context') };
    for (const scope of route.scopes) {
      if (!hasScope(principal.scopes, scope, target)) throw new ForbiddenException(`This token lacks the required scope: ${scope}.`);
    }
    req.principal = principal;
    return true;
  }

  /** What the decorators say about a handler; read once per handler, not per request. */
  private routeRules(context: ExecutionContext): RouteRules {
    const handler = context.getHandler();
    let rules = this.rules.get(handler);
    if (!rules) {
      const targets = [handler, context.getClass()];
      rules = {
        isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ?? false,
        bucket: this.reflector.getAllAndOverride<string>(RATE_LIMIT_BUCKET, targets) ?? 'api',
        scopes: this.reflector.getAllAndOverride<string[]>(REQUIRED_SCOPES, targets) ?? [],
      };
      this.rules.set(handler, rules);
    }
    return rules;
  }

  private async authenticate(req: Request, res: Response): Promise<Principal> {
    // req.ip walks the proxy chain: only worth it while someone is locked out, or on failure.
    const lockedUntil = this.lockedOut.size > 0 ? this.lockedOut.get(clientAddress(req)) : undefined;
    if (lockedUntil !== undefined) {
      const address = clientAddress(req);
      const retryAfter = (lockedUntil - Date.now()) / 1000;
      if (retryAfter > 0) {
        this.setHeaders(res, { limit: this.options.authLimitPerMinute, remaining: 0, reset: Math.ceil(lockedUntil / 1000) });
        throw new TooManyRequestsException(retryAfter);
      }
      this.lockedOut.delete(address);
    }
    const credential = extractCredential(req.headers, this.options.forms);
    const principal = credential && this.verifier ? await this.verifier.verify(credential) : null;
    if (principal) return principal;

    const address = clientAddress(req);
    const result = await this.limiter.hit('auth-fail', address, this.options.authLimitPerMinute);
    if (result.exceeded) this.lockOut(address, result.reset * 1000);
    this.enforce(res, result);
    throw new UnauthenticatedException(credential ? 'The token is invalid, expired or revoked.' : 'Authentication is required: send Authorization: Bearer <id>|<token>.');
  }

  private enforce(res: Response, result: RateLimitResult): void {
    this.setHeaders(res, result);
    if (result.exceeded) throw new TooManyRequestsException(result.retryAfter);
  }

  private setHeaders(res: Response, result: Pick<RateLimitResult, 'limit' | 'remaining' | 'reset'>): void {
    res.setHeader('X-RateLimit-Limit', result.limit);
    res.setHeader('X-RateLimit-Remaining', result.remaining);
    res.setHeader('X-RateLimit-Reset', result.reset);
  }

  private lockOut(address: string, untilMs: number): void {
    if (this.lockedOut.size > 10_000) {
      const now = Date.now();
      for (const [key, until] of this.lockedOut) if (until <= now) this.lockedOut.delete(key);
    }
    this.lockedOut.set(address, untilMs);
  }
}

interface RouteRules {
  isPublic: boolean;
  bucket: string;
  scopes: string[];
}

function clientAddress(req: Request): string {
  return req.ip ?? 'unknown';
}

function stringParam(req: Request, name: string): string | undefined {
  const value = req.params[name];
  return typeof value === 'string' ? value : undefined;
}
