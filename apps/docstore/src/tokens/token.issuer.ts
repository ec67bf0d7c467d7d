import { mintCredential } from '@app/auth/secret';
import { audited, type AuditActor, type AuditRecorder } from '@app/audit/recorder';
import { storableTimestamp, type Sql } from '@app/database';
import { ValidationFailedException } from '@app/errors/exceptions';
import type { TokenDto } from './token.dto';
import type { TokenScopes } from './token-scopes';
import type { TokensRepository } from './tokens.repository';

export interface IssuedToken {
  /** `<id>|<secret>`: shown once, never stored. */
  plainText: string;
  token: TokenDto;
}

/** What the audit log keeps of a token (the secret is never in a row; timestamps of use are not changes). */
export const auditedToken = (t: TokenDto) => ({ name: t.name, scopes: t.scopes, status: t.status, expires_at: t.expires_at });

/**
 * Creates a token row, with its audit record in the same transaction, and returns its one-time plain text; shared by
 * TokensService and the `token` command (a file of its own, so the command loads none of the service's collaborators).
 */
export async function issueToken(
  tokens: TokensRepository,
  db: { sql: Sql; audit: AuditRecorder; actor: AuditActor },
  clientId: string,
  name: string,
  scopes: TokenScopes,
  expiresAt: string | null,
): Promise<IssuedToken> {
  const expires = expiresAt === null ? null : storableTimestamp(expiresAt, 'expires_at');
  if (expires !== null && Date.parse(expires) <= Date.now()) {
    throw ValidationFailedException.of('expires_at', 'The expires at field must be a date in the future.');
  }
  const { id, plainText, secretHash } = mintCredential('id|secret');
  const token = await audited(db.sql, db.audit, db.actor, async (tx, record) => {
    const row = await tokens.insert({ id, clientId, name, secretHash, scopes, expiresAt: expires }, tx);
    await record({ tenantId: clientId, action: 'token.created', targetType: 'token', targetId: id, after: auditedToken(row) });
    return row;
  });
  return { plainText, token };
}
