import type { Request } from 'express';
import type { MaybePromise } from './maybe-async';
import type { Principal } from './principal';

/** What the guard knows about a request when it asks the app's policy. */
export interface AuthorizationRequest {
  req: Request;
  /** The route's `@RequireScopes(...)`. */
  scopes: readonly string[];
}

/**
 * The app's own rules, run after authentication and rate limiting and before the body
 * is read: e.g. the docstore's path-client and scope checks. Throws a coded exception to refuse.
 */
export interface AuthPolicy<P extends Principal = Principal> {
  authorize(principal: P, request: AuthorizationRequest): MaybePromise<void>;
}
