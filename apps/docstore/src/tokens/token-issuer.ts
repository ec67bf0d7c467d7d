import { randomUUID } from 'node:crypto';
import { generateSecret, hashSecret } from '@app/auth/secret';
import { storableTimestamp } from '@app/database';
import { ValidationFailedException } from '@app/errors/exceptions';
import type { TokenDto } from './token.dto';
import type { TokenScopes } from './token-scopes';
import type { TokensRepository } from './tokens.repository';

export interface IssuedToken {
  /** `<id>|<secret>`: shown once, never stored. */
  plainText: string;
  token: TokenDto;
}

/**
 * Creates a token row and returns its one-time plain text; shared by TokensService and the `token` command
 * (a file of its own, so the command loads none of the service's collaborators).
 */
export async function issueToken(
  tokens: TokensRepository,
  clientId: string,
  name: string,
  scopes: TokenScopes,
  expiresAt: string | null,
): Promise<IssuedToken> {
  const expires = expiresAt === null ? null : storableTimestamp(expiresAt, 'expires_at');
  if (expires !== null && Date.parse(expires) <= Date.now()) {
    throw ValidationFailedException.of('expires_at', 'The expires at field must be a date in the future.');
  }
  const id = randomUUID();
  const secret = generateSecret();
  const token = await tokens.insert({ id, clientId, name, secretHash: hashSecret(secret), scopes, expiresAt: expires });
  return { plainText: `${id}|${secret}`, token };
}
