import { Injectable } from '@nestjs/common';
import { asIs, bearerHeader, credentialSource, headerPair, idBarSecret, isUuid, type AuthOptions, type AuthorizationRequest, type AuthPolicy } from '@app/auth';
import { InvalidRequestException, AccessDeniedException } from '@app/errors';
import type { Request } from 'express';
import { clientIdOf } from '../address/client-id.param';
import { TokenVerifier } from './token-verifier.service';
import type { DocstorePrincipal } from './docstore-principal';
import { hasScope } from './token-scopes';

/**
 * The docstore's rules after authentication: a `:client` in the path must be a UUID and
 * the token's own client; every `@RequireScopes` scope must be granted, by permissions or
 * by a document rule matching the path's environment and context.
 */
@Injectable()
export class DocstoreAuthPolicy implements AuthPolicy<DocstorePrincipal> {
  authorize(principal: DocstorePrincipal, { req, scopes }: AuthorizationRequest): void {
    const client = stringParam(req, 'client');
    if (client !== undefined) {
      if (!isUuid(client)) throw new InvalidRequestException('The client in the path must be a UUID.');
      if (clientIdOf(client) !== principal.ownerId) throw new AccessDeniedException('This token does not act for this client.');
    }
    const target = { environment: stringParam(req, 'environment'), context: stringParam(req, 'context') };
    for (const scope of scopes) {
      if (!hasScope(principal.scopes, scope, target)) throw new AccessDeniedException(`This token lacks the required scope: ${scope}.`);
    }
  }
}

const BEARER_DOCS = { name: 'bearer', scheme: { type: 'http', scheme: 'bearer', description: '<TOKEN_ID>|<PLAIN_TEXT_TOKEN>' } } as const;

/** `Authorization: Bearer <id>|<secret>`, or `X-Client-Key: <id>` plus `X-Client-Token: <secret>`. */
export const DOCSTORE_AUTH: AuthOptions = {
  sources: {
    bearer: credentialSource({ header: bearerHeader(), parse: idBarSecret, store: TokenVerifier, docs: BEARER_DOCS }),
    clientKey: credentialSource({ header: headerPair('X-Client-Key', 'X-Client-Token'), parse: asIs, store: TokenVerifier }),
  },
  policy: DocstoreAuthPolicy,
  messages: {
    missing: 'Authentication is required: send Authorization: Bearer <id>|<token>.',
    invalid: 'The token is invalid, expired or revoked.',
  },
};

function stringParam(req: Request, name: string): string | undefined {
  const value = req.params[name];
  return typeof value === 'string' ? value : undefined;
}
