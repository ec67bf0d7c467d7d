import type { CredentialForm } from './credentials';

export interface AuthOptions {
  /** Header forms accepted, tried in order. */
  forms: CredentialForm[];
  /** Requests per minute per token on ordinary routes. */
  limitPerMinute: number;
  /** Requests per minute per token on authentication endpoints, and failed authentications per client address. */
  authLimitPerMinute: number;
}

export const AUTH_OPTIONS = Symbol('AUTH_OPTIONS');
