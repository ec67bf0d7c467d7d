import type { Type } from '@nestjs/common';
import type { AuthPolicy } from './auth.policy';
import type { CredentialSource } from './credential-source';

/** How an app authenticates (see `authProviders`). */
export interface AuthOptions {
  /** Every credential source of the app, by name. */
  sources: Record<string, CredentialSource<unknown>>;
  /** Sources tried on routes without `@AcceptCredentials(...)`, in order; all of them when left out. */
  defaultSources?: string[];
  /** The app's authorization rules, a provider class; none means any authenticated caller passes. */
  policy?: Type<AuthPolicy>;
  /** 401 wording: no credential found, or one that did not verify. */
  messages?: { missing?: string; invalid?: string };
}

export const AUTH_OPTIONS = Symbol('AUTH_OPTIONS');
