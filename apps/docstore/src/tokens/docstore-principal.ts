import type { Principal } from '@app/auth';
import type { TokenScopes } from './token-scopes';

/**
 * A docstore token once authenticated: it acts for one client (`ownerId`) with its scopes.
 * Apart from the auth policy and the verifier, so that neither imports the other for it.
 */
export interface DocstorePrincipal extends Principal {
  scopes: TokenScopes;
}
