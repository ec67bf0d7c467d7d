import { Inject, Injectable, type CanActivate, type ExecutionContext, type OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { TooManyRequestsException, UnauthenticatedException, type CallerHeaders } from '@app/errors';
import { setRequestAttributes } from '@app/observability';
import { RateLimitConfig, RateLimiter, type RateLimitResult } from '@app/rate-limit';
import type { Request, Response } from 'express';
import { CREDENTIAL_SOURCES, IS_PUBLIC, RATE_LIMIT_BUCKET, REQUIRED_SCOPES } from './auth.decorators';
import { AUTH_OPTIONS, type AuthOptions } from './auth.options';
import type { AuthPolicy } from './auth.policy';
import type { Credential, CredentialSource, CredentialStore } from './credential-source';
import { STREAM_BODY, TOO_LARGE_HINT, type StreamBodyOptions, type TooLargeHint } from './request-body.decorators';
import { after, type MaybePromise } from './maybe-async';
import { RequestBodyReader, type BodyMode } from './request-body.reader';

interface ResolvedSource {
  source: CredentialSource<unknown>;
  store: CredentialStore;
}

interface RouteRules {
  isPublic: boolean;
  bucket: string;
  scopes: string[];
  sources: ResolvedSource[];
  body: BodyMode;
}

/**
 * The global request gate; denies by default. In order: the route's credential sources
 * (header form → parser → store) → the failed-authentication limit per address → the
 * per-credential rate limit → the app's policy → only then the body is read. A request
 * without valid credentials never has its body read; a declared oversized one is
 * refused from its Content-Length.
 */
@Injectable()
export class AuthGuard implements CanActivate, CallerHeaders, OnApplicationBootstrap {
  /** Addresses over the failure limit, until their window resets (ms). Saves a Redis round trip per refused request. */
  private readonly lockedOut = new Map<string, number>();
  private readonly rules = new WeakMap<object, RouteRules>();
  private readonly stores = new Map<string, ResolvedSource>();
  private policy?: AuthPolicy;

  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    private readonly limiter: RateLimiter,
    private readonly limits: RateLimitConfig,
    private readonly body: RequestBodyReader,
    @Inject(AUTH_OPTIONS) private readonly options: AuthOptions,
  ) {}

  /** Resolves every source's store and the policy once, so a missing provider stops the app at start. */
  onApplicationBootstrap(): void {
    for (const [name, source] of Object.entries(this.options.sources)) {
      this.stores.set(name, { source, store: this.moduleRef.get<CredentialStore>(source.store, { strict: false }) });
    }
    if (this.options.policy) this.policy = this.moduleRef.get(this.options.policy, { strict: false });
  }

  /**
   * Every step may answer at once (a cached credential, a hit counted in process, a
   * synchronous policy, no body) and is then not waited for: the common request gets a
   * plain `true`, which Nest takes without a promise or a microtask.
   */
  canActivate(context: ExecutionContext): MaybePromise<boolean> {
    const route = this.routeRules(context);
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const oversized = this.body.declaredTooLarge(req, route.body);
    if (route.isPublic) {
      if (oversized) throw this.body.tooLarge(route.body);
      return this.readBody(req, res, route.body, `address:${clientAddress(req)}`);
    }

    const { credential, store, present } = this.findCredential(req, route.sources);
    return after(credential ? store.verify(credential) : null, (principal) => {
      if (!principal) return this.refuse(req, res, present, oversized ? route.body : null, route.sources[0]?.source.messages);
      const limit = route.bucket === 'auth' ? this.limits.RATE_LIMIT_AUTH_PER_MINUTE : this.limits.RATE_LIMIT_PER_MINUTE;
      return after(this.limiter.hit(route.bucket, principal.credentialId, limit), (counted) => {
        this.enforce(res, counted);
        return after(this.policy?.authorize(principal, { req, scopes: route.scopes }), () => {
          if (oversized) throw this.body.tooLarge(route.body);
          req.principal = principal;
          // Who the request acts for, and its path's parameters (ids and names, never a credential), on its span.
          setRequestAttributes(() => ({ 'app.owner': principal.ownerId, 'app.credential.id': principal.credentialId, ...pathAttributes(req) }));
          return this.readBody(req, res, route.body, principal.credentialId);
        });
      });
    });
  }

  /**
   * For answers the gate never saw (unknown routes): when the request carries valid
   * credentials of any source, it is counted and gets its rate-limit headers. Nothing
   * else happens: no failure is counted, nothing is refused.
   */
  async annotate(req: Request, res: Response): Promise<void> {
    try {
      const found = this.findCredential(req, [...this.stores.values()]);
      const principal = found.credential && (await found.store.verify(found.credential));
      if (principal) this.setHeaders(res, await this.limiter.hit('api', principal.credentialId, this.limits.RATE_LIMIT_PER_MINUTE));
    } catch {
      // The answer goes out without the headers.
    }
  }

  /** `true` at once when there is no body to read, else once it is read and parsed; `subject` owns its share of the in-flight budget. */
  private readBody(req: Request, res: Response, mode: BodyMode, subject: string): MaybePromise<boolean> {
    return this.body.needsReading(req, mode) ? this.body.read(req, res, mode, subject).then(() => true) : true;
  }

  /** What the decorators say about a handler; read once per handler, not per request. */
  private routeRules(context: ExecutionContext): RouteRules {
    const handler = context.getHandler();
    let rules = this.rules.get(handler);
    if (!rules) {
      const targets = [handler, context.getClass()];
      const names = this.reflector.getAllAndOverride<string[]>(CREDENTIAL_SOURCES, targets) ?? this.options.defaultSources ?? [...this.stores.keys()];
      const stream = this.reflector.getAllAndOverride<StreamBodyOptions>(STREAM_BODY, targets);
      const hint = this.reflector.get<TooLargeHint | undefined>(TOO_LARGE_HINT, handler);
      rules = {
        isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ?? false,
        bucket: this.reflector.getAllAndOverride<string>(RATE_LIMIT_BUCKET, targets) ?? 'api',
        scopes: this.reflector.getAllAndOverride<string[]>(REQUIRED_SCOPES, targets) ?? [],
        sources: names.map((name) => {
          const resolved = this.stores.get(name);
          if (!resolved) throw new Error(`No credential source named "${name}" is registered.`);
          return resolved;
        }),
        body: stream ? { kind: 'stream', ...stream } : { kind: 'json', tooLargeHint: hint?.hint(this.moduleRef.get(hint.from, { strict: false })) },
      };
      this.rules.set(handler, rules);
    }
    return rules;
  }

  /**
   * A request without valid credentials: 401, or 429 past the failure limit of its address.
   * The first source whose header is present decides: a credential that does not verify
   * is a failure even if a later source would match. Valid credentials always pass, even
   * from an address over the failure limit (secrets are too long to guess, so locking
   * them out buys nothing).
   */
  private async refuse(req: Request, res: Response, present: boolean, oversized: BodyMode | null, sourceMessages?: AuthOptions['messages']): Promise<never> {
    const address = clientAddress(req);
    const lockedUntil = this.lockedOut.get(address);
    if (lockedUntil !== undefined) {
      const retryAfter = (lockedUntil - Date.now()) / 1000;
      if (retryAfter > 0) {
        this.setHeaders(res, { limit: this.limits.RATE_LIMIT_AUTH_PER_MINUTE, remaining: 0, reset: Math.ceil(lockedUntil / 1000) });
        throw new TooManyRequestsException(retryAfter);
      }
      this.lockedOut.delete(address);
    }
    const result = await this.limiter.hit('auth-fail', address, this.limits.RATE_LIMIT_AUTH_PER_MINUTE);
    if (result.exceeded) this.lockOut(address, result.reset * 1000);
    this.enforce(res, result);
    if (oversized) throw this.body.tooLarge(oversized);
    const messages = { ...this.options.messages, ...sourceMessages };
    throw new UnauthenticatedException(
      present ? (messages.invalid ?? 'The credential is invalid, expired or revoked.') : (messages.missing ?? 'Authentication is required.'),
    );
  }

  /** The first credential that parses, in source order, and whether any source's header was there at all. */
  private findCredential(req: Request, sources: ResolvedSource[]): { credential?: Credential; store: CredentialStore; present: boolean } {
    let present = false;
    for (const { source, store } of sources) {
      const raw = source.header.read(req.headers);
      if (raw === null) continue;
      present = true;
      const credential = source.parse(raw);
      if (credential) return { credential, store, present };
    }
    return { store: NO_STORE, present };
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

const NO_STORE: CredentialStore = { verify: () => null };

function clientAddress(req: Request): string {
  return req.ip ?? 'unknown';
}

/** A request's path parameters as span attributes (`app.path.type`: the docstore's collection, and the like). */
function pathAttributes(req: Request): Record<string, string> {
  const params = (req.params ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(params).flatMap(([name, value]) => (typeof value === 'string' ? [[`app.path.${name}`, value]] : [])));
}
