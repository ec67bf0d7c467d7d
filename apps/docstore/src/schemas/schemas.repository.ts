import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql, type SqlRunner } from '@app/database';
import type { DocumentScope } from '../documents/document-scope';

export interface SchemaView {
  id: number;
  client_id: string;
  environment: string;
  context: string;
  type: string;
  schema: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const VIEW = `id, client_id, environment, context, type, schema, ${isoTimestamp('created_at')}, ${isoTimestamp('updated_at')}`;
const SCOPE = 'client_id = $1 AND environment = $2 AND context = $3 AND type = $4';

const params = (s: DocumentScope): unknown[] => [s.clientId, s.environment, s.context, s.type];

@Injectable()
export class SchemasRepository {
  constructor(private readonly db: Sql) {}

  find(scope: DocumentScope, db: SqlRunner = this.db): Promise<SchemaView | null> {
    return db.one<SchemaView>(`SELECT ${VIEW} FROM docstore.schemas WHERE ${SCOPE}`, params(scope));
  }

  async upsert(scope: DocumentScope, schema: Record<string, unknown>): Promise<{ schema: SchemaView; created: boolean }> {
    const row = await this.db.one<SchemaView & { created: boolean }>(
      `INSERT INTO docstore.schemas AS s (client_id, environment, context, type, schema) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (client_id, environment, context, type) DO UPDATE SET schema = EXCLUDED.schema, updated_at = now()
       RETURNING ${VIEW}, (xmax = 0) AS created`,
      [...params(scope), JSON.stringify(schema)],
    );
    const { created, ...view } = row!;
    return { schema: view, created };
  }

  async delete(scope: DocumentScope): Promise<boolean> {
    return (await this.db.rows(`DELETE FROM docstore.schemas WHERE ${SCOPE} RETURNING id`, params(scope))).length > 0;
  }
}
