import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql } from '@app/database';
import type { TokenDto } from './token.dto';
import type { TokenStatus } from './token.entity';
import type { TokenScopes } from './token-scopes';

const VIEW = `id, client_id, name, scopes, status, ${isoTimestamp('last_used_at')}, ${isoTimestamp('expires_at')},
  ${isoTimestamp('created_at')}, ${isoTimestamp('updated_at')}`;

/** What authentication needs to know about a token. */
export interface TokenSecretRow {
  id: string;
  client_id: string;
  secret_hash: Buffer;
  scopes: TokenScopes;
  status: TokenStatus;
  expires_at: Date | null;
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

  async insert(token: NewToken): Promise<TokenDto> {
    return (await this.db.one<TokenDto>(
      `INSERT INTO docstore.tokens (id, client_id, name, secret_hash, scopes, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${VIEW}`,
      [token.id, token.clientId, token.name, token.secretHash, JSON.stringify(token.scopes), token.expiresAt],
    ))!;
  }

  async findSecret(id: string): Promise<TokenSecretRow | null> {
    return this.db.one<TokenSecretRow>(`SELECT id, client_id, secret_hash, scopes, status, expires_at FROM docstore.tokens WHERE id = $1`, [id]);
  }

  /** Revoked tokens are gone from the API. */
  list(clientId: string, limit: number, offset: number): Promise<{ rows: TokenDto[]; total: number }> {
    return this.db.page<TokenDto>(
      { columns: VIEW, source: `docstore.tokens WHERE client_id = $1 AND status <> 'revoked'`, orderBy: 'created_at, id', params: [clientId] },
      limit,
      offset,
    );
  }

  async update(clientId: string, id: string, changes: TokenChanges): Promise<TokenDto | null> {
    return this.db.one<TokenDto>(
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
