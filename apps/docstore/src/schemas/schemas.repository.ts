import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql, type SqlRunner } from '@app/database';
import type { DocumentScope } from '../address/document-scope';
import type { SchemaDto } from './schema.dto';

const VIEW = `id, client_id, environment, context, type, schema, ${isoTimestamp('created_at')}, ${isoTimestamp('updated_at')}`;
const SCOPE = 'client_id = $1 AND environment = $2 AND context = $3 AND type = $4';

/** The channel every schema change is announced on; the payload is the collection's `schemaCacheKey`. */
export const SCHEMA_CHANGED_CHANNEL = 'docstore_schema_changed';

export const schemaCacheKey = (s: DocumentScope): string => JSON.stringify([s.clientId, s.environment, s.context, s.type]);

/** Sent when the statement's transaction commits. */
const notifyChanged = (param: string) => `pg_notify('${SCHEMA_CHANGED_CHANNEL}', ${param}) AS notified`;

const params = (s: DocumentScope): unknown[] => [s.clientId, s.environment, s.context, s.type];

@Injectable()
export class SchemasRepository {
  constructor(private readonly db: Sql) {}

  find(scope: DocumentScope): Promise<SchemaDto | null> {
    return this.db.one<SchemaDto>(`SELECT ${VIEW} FROM docstore.schemas WHERE ${SCOPE}`, params(scope));
  }

  /** The collection's schema as it is, locked until `tx` ends (what the audit log records as before). */
  locked(tx: SqlRunner, scope: DocumentScope): Promise<SchemaDto | null> {
    return tx.one<SchemaDto>(`SELECT ${VIEW} FROM docstore.schemas WHERE ${SCOPE} FOR UPDATE`, params(scope));
  }

  /** Changes commit with a NOTIFY naming the collection, which drops it from every replica's schema cache. */
  async upsert(tx: SqlRunner, scope: DocumentScope, schema: Record<string, unknown>): Promise<{ schema: SchemaDto; created: boolean }> {
    const row = await tx.one<SchemaDto & { created: boolean; notified: unknown }>(
      `INSERT INTO docstore.schemas AS s (client_id, environment, context, type, schema) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (client_id, environment, context, type) DO UPDATE SET schema = EXCLUDED.schema, updated_at = now()
       RETURNING ${VIEW}, (xmax = 0) AS created, ${notifyChanged('$6')}`,
      [...params(scope), JSON.stringify(schema), schemaCacheKey(scope)],
    );
    const { created, notified: _notified, ...view } = row!;
    return { schema: view, created };
  }

  async delete(tx: SqlRunner, scope: DocumentScope): Promise<boolean> {
    return (
      (await tx.rows(`DELETE FROM docstore.schemas WHERE ${SCOPE} RETURNING id, ${notifyChanged('$5')}`, [...params(scope), schemaCacheKey(scope)])).length > 0
    );
  }
}
