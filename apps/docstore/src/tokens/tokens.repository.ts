import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql, type SqlRunner } from '@app/database';
import type { TokenDto } from './token.dto';
import type { TokenStatus } from './token.entity';
import type { TokenScopes } from './token-scopes';

const VIEW = `id, client_id, name, scopes, status, ${isoTimestamp('last_used_at')}, ${isoTimestamp('expires_at')},
  ${isoTimestamp('created_at')}, ${isoTimestamp('updated_at')}`;

/** What authentication needs to know about a token. */
export interface TokenSecretRow {
  id: string;
  client_id: string;
  name: string;
  secret_hash: Buffer;
  scopes: TokenScopes;
  status: TokenStatus;
  expires_at: Date | null;
}

/** What a long-lived reader (an event stream) rechecks about its token. */
export interface TokenState {
  id: string;
  scopes: TokenScopes;
  /** Still usable: active and not past its expiry. */
  usable: boolean;
  expired: boolean;
}

export interface NewToken {
  id: string;
  clientId: string;
  name: string;
  secretHash: Buffer;
  scopes: TokenScopes;
  expiresAt: string | null;
}

export interface TokenChanges {
  name?: string;
  scopes?: TokenScopes;
  status?: TokenStatus;
}

@Injectable()
export class TokensRepository {
  constructor(private readonly db: Sql) {}

  /** The tokens among `ids` that still exist, with whether each is still usable; one statement for every open stream. */
  states(ids: readonly string[]): Promise<TokenState[]> {
    return this.db.rows<TokenState>(
      `SELECT id, scopes, status = 'active' AND (expires_at IS NULL OR expires_at > now()) AS usable,
              coalesce(expires_at <= now(), false) AS expired
         FROM docstore.tokens WHERE id = ANY ($1::uuid[])`,
      [ids],
    );
  }

  /** `db`: the transaction that also records the change (the audit log). */
  async insert(token: NewToken, db: SqlRunner = this.db): Promise<TokenDto> {
    return (await db.one<TokenDto>(
      `INSERT INTO docstore.tokens (id, client_id, name, secret_hash, scopes, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${VIEW}`,
      [token.id, token.clientId, token.name, token.secretHash, JSON.stringify(token.scopes), token.expiresAt],
    ))!;
  }

  async findSecret(id: string): Promise<TokenSecretRow | null> {
    return this.db.one<TokenSecretRow>(`SELECT id, client_id, name, secret_hash, scopes, status, expires_at FROM docstore.tokens WHERE id = $1`, [id]);
  }

  /** Revoked tokens are gone from the API. */
  list(clientId: string, limit: number, offset: number): Promise<{ rows: TokenDto[]; total: number }> {
    return this.db.page<TokenDto>(
      { columns: VIEW, source: `docstore.tokens WHERE client_id = $1 AND status <> 'revoked'`, orderBy: 'created_at, id', params: [clientId] },
      limit,
      offset,
    );
  }

  /** The token as it is, locked until `tx` ends (what the audit log records as before). */
  locked(tx: SqlRunner, clientId: string, id: string): Promise<TokenDto | null> {
    return tx.one<TokenDto>(`SELECT ${VIEW} FROM docstore.tokens WHERE client_id = $1 AND id = $2 AND status <> 'revoked' FOR UPDATE`, [clientId, id]);
  }

  async update(clientId: string, id: string, changes: TokenChanges, db: SqlRunner = this.db): Promise<TokenDto | null> {
    return db.one<TokenDto>(
      `UPDATE docstore.tokens SET
         name = COALESCE($3, name), scopes = COALESCE($4::jsonb, scopes), status = COALESCE($5, status), updated_at = now()
       WHERE client_id = $1 AND id = $2 AND status <> 'revoked' RETURNING ${VIEW}`,
      [clientId, id, changes.name ?? null, changes.scopes ? JSON.stringify(changes.scopes) : null, changes.status ?? null],
    );
  }

  /** Writes last-use times collected in memory, never moving one backwards. */
  async touch(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    if (lastUsed.size === 0) return;
    await this.db.rows(
      `UPDATE docstore.tokens t SET last_used_at = GREATEST(t.last_used_at, u.at)
       FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at) WHERE t.id = u.id`,
      [[...lastUsed.keys()], [...lastUsed.values()].map((d) => d.toISOString())],
    );
  }
}
