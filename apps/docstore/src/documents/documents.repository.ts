import { setTimeout } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { isoTimestamp, prepared, Sql, type PreparedStatement, type SqlRunner } from '@app/database';
import { splitRecorded, WebhookEvents, type EventRows } from '@app/webhooks';
import type { DocumentScope } from '../address/document-scope';
import { ChangeKind, changeLogCte } from './document-changes';
import { DocumentEvent } from './document-events';
import { filterConditions, orderBy } from './document-filter.sql';
import type { DocumentListQuery } from './document-query.dto';
import type { DocumentDto } from './document.dto';
import { DocumentWriteConflictException } from './documents.exception';

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

/** The webhook event of each written row (the row as the API shows it), owned by its client. */
const EVENTS = (eventType: EventRows['eventType']): EventRows => ({ rows: 'v', ownerColumn: 'client_id', eventType });

/** Reviving a soft-deleted or expired document continues its version count. */
const UPSERT = `
  ON CONFLICT (client_id, environment, context, type, key) DO UPDATE
  SET data = EXCLUDED.data, expires_at = EXCLUDED.expires_at, version = d.version + 1, deleted_at = NULL, updated_at = now()`;

export interface DocumentWrite {
  data: Record<string, unknown>;
  expiresAt: string | null;
}

/** What a write returns: the rows, and how many webhook deliveries it recorded (the relay is woken after commit). */
export interface Written<T> {
  value: T;
  deliveries: number;
}

function written(rows: DocumentDto[]): Written<DocumentDto | null> {
  const {
    rows: [value = null],
    deliveries,
  } = splitRecorded(rows);
  return { value, deliveries };
}

export interface DocumentState {
  id: string;
  version: number;
  live: boolean;
}

/** PostgreSQL's deadlock_detected and serialization_failure: the transaction may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const WRITE_ATTEMPTS = 5;

/** GET by key, the hottest read: prepared, so PostgreSQL neither parses nor plans it per request. */
const FIND_LIVE = prepared('docstore.find_live', `SELECT ${DOCUMENT_VIEW} FROM docstore.documents WHERE ${AT_KEY} AND ${LIVE}`);
const FIND_ANY = prepared('docstore.find_any', `SELECT ${DOCUMENT_VIEW} FROM docstore.documents WHERE ${AT_KEY}`);

const scopeParams = (s: DocumentScope): unknown[] => [s.clientId, s.environment, s.context, s.type];

@Injectable()
export class DocumentsRepository {
  /** The single-document writes, prepared: their text is fixed once the webhook engine is known. */
  private readonly writes: Record<'create' | 'update' | 'softDelete', PreparedStatement>;

  constructor(
    private readonly db: Sql,
    private readonly events: WebhookEvents,
  ) {
    this.writes = {
      create: prepared(
        'docstore.create',
        this.withEvents(
          `w AS (
         INSERT INTO docstore.documents AS d (client_id, environment, context, type, key, data, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ${UPSERT}
         WHERE d.deleted_at IS NOT NULL OR d.expires_at <= now()
         RETURNING d.*
       ) ${WITH_HISTORY('w')}`,
          DocumentEvent.Created,
        ),
      ),
      update: prepared(
        'docstore.update',
        this.withEvents(
          `w AS (
         UPDATE docstore.documents SET data = $6, expires_at = $7, version = version + 1, updated_at = now()
         WHERE ${AT_KEY} AND ${LIVE} AND ($8::int IS NULL OR version = $8)
         RETURNING *
       ) ${WITH_HISTORY('w')}`,
          DocumentEvent.Updated,
        ),
      ),
      softDelete: prepared(
        'docstore.soft_delete',
        this.withEvents(
          `w AS (
         UPDATE docstore.documents SET deleted_at = now(), updated_at = now()
         WHERE ${AT_KEY} AND ${LIVE} AND ($6::int IS NULL OR version = $6) RETURNING *
       )`,
          DocumentEvent.Deleted,
        ),
      ),
    };
  }

  /**
   * A write statement that ends with the rows as the API shows them (`v`) and records, in the
   * same statement, the webhook event and the change-feed entry of each, so they commit or roll
   * back with the change. The change's kind is the event's (`document.created` → `created`) unless given.
   */
  private withEvents(ctes: string, eventType: EventRows['eventType'], kind?: ChangeKind): string {
    const changeKind = kind
      ? `'${kind}'`
      : typeof eventType === 'string'
        ? `'${eventType.slice('document.'.length)}'`
        : `substr(${eventType('r')}, ${'document.'.length + 1})`;
    return this.events.withEvents(`${ctes}, v AS (SELECT ${DOCUMENT_VIEW} FROM w), ${changeLogCte('v', changeKind)}`, EVENTS(eventType));
  }

  /**
   * Runs `work` in one transaction. A deadlock or serialization failure rolls it back and
   * runs it again, up to `WRITE_ATTEMPTS` times in all; then the caller gets a 409.
   */
  async transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction(work);
      } catch (error) {
        if (!RETRYABLE.has((error as { code?: string }).code ?? '')) throw error;
        if (attempt === WRITE_ATTEMPTS) throw new DocumentWriteConflictException();
        await setTimeout(Math.random() * 10 * attempt);
      }
    }
  }

  find(scope: DocumentScope, key: string, includeDeleted: boolean): Promise<DocumentDto | null> {
    return this.db.one<DocumentDto>(includeDeleted ? FIND_ANY : FIND_LIVE, [...scopeParams(scope), key]);
  }

  /** Version and liveness, for telling 404 from 412 after a conditional write matched nothing. */
  state(scope: DocumentScope, key: string, db: SqlRunner = this.db, lock = false): Promise<DocumentState | null> {
    return db.one<DocumentState>(`SELECT id, version, ${LIVE} AS live FROM docstore.documents WHERE ${AT_KEY}${lock ? ' FOR UPDATE' : ''}`, [
      ...scopeParams(scope),
      key,
    ]);
  }

  /** Creates the document, or revives a deleted or expired one; null when a live one exists. */
  async create(scope: DocumentScope, key: string, write: DocumentWrite): Promise<Written<DocumentDto | null>> {
    return written(await this.db.rows<DocumentDto>(this.writes.create, [...scopeParams(scope), key, write.data, write.expiresAt]));
  }

  /** Replaces a live document's data; `expectedVersion` makes it conditional. Null when nothing matched. */
  async update(scope: DocumentScope, key: string, write: DocumentWrite, expectedVersion?: number): Promise<Written<DocumentDto | null>> {
    return written(await this.db.rows<DocumentDto>(this.writes.update, [...scopeParams(scope), key, write.data, write.expiresAt, expectedVersion ?? null]));
  }

  /** Brings back an earlier version's data (also for a deleted or expired document, which becomes live again). */
  async restore(id: string, data: Record<string, unknown>, db: SqlRunner): Promise<Written<DocumentDto | null>> {
    return written(
      await db.rows<DocumentDto>(
        this.withEvents(
          `w AS (
         UPDATE docstore.documents SET data = $2, version = version + 1, updated_at = now(), deleted_at = NULL,
           expires_at = CASE WHEN expires_at <= now() THEN NULL ELSE expires_at END
         WHERE id = $1 RETURNING *
       ) ${WITH_HISTORY('w')}`,
          DocumentEvent.Updated,
          ChangeKind.Restored,
        ),
        [id, data],
      ),
    );
  }

  /** The event carries the document as it was deleted (deleted_at set). */
  async softDelete(scope: DocumentScope, key: string, expectedVersion?: number): Promise<Written<DocumentDto | null>> {
    return written(await this.db.rows<DocumentDto>(this.writes.softDelete, [...scopeParams(scope), key, expectedVersion ?? null]));
  }

  /**
   * Creates or updates every item in one statement; rows come back in input order. A key
   * that was not live before is `document.created`, one that was is `document.updated`.
   * Rows are written in key order, so concurrent bulks lock shared keys in one order and
   * cannot deadlock each other.
   */
  async bulkUpsert(scope: DocumentScope, items: Array<DocumentWrite & { key: string }>, db: SqlRunner): Promise<Written<DocumentDto[]>> {
    const { rows, deliveries } = splitRecorded(
      await db.rows<DocumentDto>(
        this.withEvents(
          `input AS (
         SELECT * FROM jsonb_to_recordset($5::jsonb) AS i(key text, data jsonb, expires_at timestamptz)
       ), was_live AS (
         SELECT key FROM docstore.documents WHERE ${SCOPE} AND key IN (SELECT key FROM input) AND ${LIVE}
       ), w AS (
         INSERT INTO docstore.documents AS d (client_id, environment, context, type, key, data, expires_at)
         SELECT $1, $2, $3, $4, key, data, expires_at FROM input ORDER BY key COLLATE "C" ${UPSERT}
         RETURNING d.*
       ) ${WITH_HISTORY('w')}`,
          (row) => `CASE WHEN ${row}.key IN (SELECT key FROM was_live) THEN '${DocumentEvent.Updated}' ELSE '${DocumentEvent.Created}' END`,
        ),
        [...scopeParams(scope), JSON.stringify(items.map((i) => ({ key: i.key, data: i.data, expires_at: i.expiresAt })))],
      ),
    );
    const position = new Map(items.map((item, i) => [item.key, i]));
    return { value: rows.sort((a, b) => position.get(a.key)! - position.get(b.key)!), deliveries };
  }

  list(scope: DocumentScope, query: DocumentListQuery, limit: number, offset: number): Promise<{ rows: DocumentDto[]; total: number }> {
    const params = scopeParams(scope);
    const where = [SCOPE, ...(query.deleted ? [] : [LIVE]), ...filterConditions(query.filters, params)].join(' AND ');
    const sourceParams = params.length;
    const order = orderBy(query.sort, params);
    return this.db.page<DocumentDto>(
      { columns: DOCUMENT_VIEW, source: `docstore.documents WHERE ${where}`, orderBy: order, params, sourceParams },
      limit,
      offset,
    );
  }
}
