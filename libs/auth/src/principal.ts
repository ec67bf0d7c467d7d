import type { Credential } from './credentials';
import type { TokenScopes } from './scopes';

/** Who is calling: the token and the client it acts for. */
export interface Principal {
  tokenId: string;
  clientId: string;
  scopes: TokenScopes;
}

/** Provided by each app: turns a credential into a principal, or null when it is unknown, expired or revoked. */
export interface CredentialVerifier {
  verify(credential: Credential): Promise<Principal | null>;
}

export const CREDENTIAL_VERIFIER = Symbol('CREDENTIAL_VERIFIER');

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}
