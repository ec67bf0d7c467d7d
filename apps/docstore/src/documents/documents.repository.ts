import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql, type SqlRunner } from '@app/database';
import { filterConditions, orderBy } from './document-filter.sql';
import type { DocumentListQuery } from './document-query';
import type { DocumentScope } from './document-scope';
import type { DocumentView } from './document.dto';

export const DOCUMENT_VIEW = `id, client_id, environment, context, type, key, data, version,
  ${isoTimestamp('created_at')}, ${isoTimestamp('updated_at')}, ${isoTimestamp('expires_at')}, ${isoTimestamp('deleted_at')}`;

const SCOPE = 'client_id = $1 AND environment = $2 AND context = $3 AND type = $4';
const AT_KEY = `${SCOPE} AND key = $5`;
/** Live: neither soft-deleted nor past its expiry. */
export const LIVE = '(deleted_at IS NULL AND (expires_at IS NULL OR expires_at > now()))';

/** Every write adds the history entry of the version it made, in the same statement. */
const WITH_HISTORY = (written: string) => `
  , h AS (
    INSERT INTO docstore.document_history (document_id, client_id, environment, context, type, key, data, version, created_at)
    SELECT id, client_id, environment, context, type, key, data, version, updated_at FROM ${written}
  )`;

/** Reviving a soft-deleted or expired document continues its version count. */
const UPSERT = `
  ON CONFLICT (client_id, environment, context, type, key) DO UPDATE
  SET data = EXCLUDED.data, expires_at = EXCLUDED.expires_at, version = d.version + 1, deleted_at = NULL, updated_at = now()`;

export interface DocumentWrite {
  data: Record<string, unknown>;
  expiresAt: string | null;
}

export interface DocumentState {
  id: string;
  version: number;
  live: boolean;
}

const scopeParams = (s: DocumentScope): unknown[] => [s.clientId, s.environment, s.context, s.type];

@Injectable()
export class DocumentsRepository {
  constructor(private readonly db: Sql) {}

  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  find(scope: DocumentScope, key: string, includeDeleted: boolean): Promise<DocumentView | null> {
    return this.db.one<DocumentView>(
      `SELECT ${DOCUMENT_VIEW} FROM docstore.documents WHERE ${AT_KEY}${includeDeleted ? '' : ` AND ${LIVE}`}`,
      [...scopeParams(scope), key],
    );
  }

  /** Version and liveness, for telling 404 from 412 after a conditional write matched nothing. */
  state(scope: DocumentScope, key: string, db: SqlRunner = this.db, lock = false): Promise<DocumentState | null> {
    return db.one<DocumentState>(
      `SELECT id, version, ${LIVE} AS live FROM docstore.documents WHERE ${AT_KEY}${lock ? ' FOR UPDATE' : ''}`,
      [...scopeParams(scope), key],
    );
  }

  /** Creates the document, or revives a deleted or expired one; null when a live one exists. */
  create(scope: DocumentScope, key: string, write: DocumentWrite): Promise<DocumentView | null> {
    return this.db.one<DocumentView>(
      `WITH w AS (
         INSERT INTO docstore.documents AS d (client_id, environment, context, type, key, data, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ${UPSERT}
         WHERE d.deleted_at IS NOT NULL OR d.expires_at <= now()
         RETURNING d.*
       ) ${WITH_HISTORY('w')}
       SELECT ${DOCUMENT_VIEW} FROM w`,
      [...scopeParams(scope), key, write.data, write.expiresAt],
    );
  }

  /** Replaces a live document's data; `expectedVersion` makes it conditional. Null when nothing matched. */
  update(scope: DocumentScope, key: string, write: DocumentWrite, expectedVersion?: number, db: SqlRunner = this.db): Promise<DocumentView | null> {
    return db.one<DocumentView>(
      `WITH w AS (
         UPDATE docstore.documents SET data = $6, expires_at = $7, version = version + 1, updated_at = now()
         WHERE ${AT_KEY} AND ${LIVE} AND ($8::int IS NULL OR version = $8)
         RETURNING *
       ) ${WITH_HISTORY('w')}
       SELECT ${DOCUMENT_VIEW} FROM w`,
      [...scopeParams(scope), key, write.data, write.expiresAt, expectedVersion ?? null],
    );
  }

  /** Brings back an earlier version's data (also for a deleted or expired document, which becomes live again). */
  restore(id: string, data: Record<string, unknown>, db: SqlRunner): Promise<DocumentView | null> {
    return db.one<DocumentView>(
      `WITH w AS (
         UPDATE docstore.documents SET data = $2, version = version + 1, updated_at = now(), deleted_at = NULL,
           expires_at = CASE WHEN expires_at <= now() THEN NULL ELSE expires_at END
         WHERE id = $1 RETURNING *
       ) ${WITH_HISTORY('w')}
       SELECT ${DOCUMENT_VIEW} FROM w`,
      [id, data],
    );
  }

  async softDelete(scope: DocumentScope, key: string, expectedVersion?: number): Promise<boolean> {
    const rows = await this.db.rows(
      `UPDATE docstore.documents SET deleted_at = now(), updated_at = now()
       WHERE ${AT_KEY} AND ${LIVE} AND ($6::int IS NULL OR version = $6) RETURNING id`,
      [...scopeParams(scope), key, expectedVersion ?? null],
    );
    return rows.length > 0;
  }

  /** Creates or updates every item in one statement; rows come back in input order. */
  async bulkUpsert(scope: DocumentScope, items: Array<DocumentWrite & { key: string }>, db: SqlRunner): Promise<DocumentView[]> {
    const rows = await db.rows<DocumentView>(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($5::jsonb) AS i(key text, data jsonb, expires_at timestamptz)
       ), w AS (
         INSERT INTO docstore.documents AS d (client_id, environment, context, type, key, data, expires_at)
         SELECT $1, $2, $3, $4, key, data, expires_at FROM input ${UPSERT}
         RETURNING d.*
       ) ${WITH_HISTORY('w')}
       SELECT ${DOCUMENT_VIEW} FROM w`,
      [...scopeParams(scope), JSON.stringify(items.map((i) => ({ key: i.key, data: i.data, expires_at: i.expiresAt })))],
    );
    const position = new Map(items.map((item, i) => [item.key, i]));
    return rows.sort((a, b) => position.get(a.key)! - position.get(b.key)!);
  }

  async list(scope: DocumentScope, query: DocumentListQuery, limit: number, offset: number): Promise<{ rows: DocumentView[]; total: number }> {
    const params = scopeParams(scope);
    const where = [SCOPE, ...(query.deleted ? [] : [LIVE]), ...filterConditions(query.filters, params)].join(' AND ');
    const countParams = [...params];
    const order = orderBy(query.sort, params);
    const [rows, count] = await Promise.all([
      this.db.rows<DocumentView>(
        `SELECT ${DOCUMENT_VIEW} FROM docstore.documents WHERE ${where} ORDER BY ${order}
         LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, limit, offset],
      ),
      this.db.one<{ total: number }>(`SELECT count(*)::int AS total FROM docstore.documents WHERE ${where}`, countParams),
    ]);
    return { rows, total: count!.total };
  }
}
