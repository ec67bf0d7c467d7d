import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql, type SqlRunner } from '@app/database';
import type { DocumentScope } from '../address/document-scope';
import type { HistoryEntryDto } from './history-entry.dto';

const VIEW = `id::text AS id, client_id, environment, context, type, key, data, version, ${isoTimestamp('created_at')}`;

@Injectable()
export class HistoryRepository {
  constructor(private readonly db: Sql) {}

  /** Newest version first. */
  list(documentId: string, limit: number, offset: number): Promise<{ rows: HistoryEntryDto[]; total: number }> {
    return this.db.page<HistoryEntryDto>(
      { columns: VIEW, source: 'docstore.document_history WHERE document_id = $1', orderBy: 'version DESC', params: [documentId] },
      limit,
      offset,
    );
  }

  /** The entry's data, only when it belongs to this document. */
  entryData(documentId: string, entryId: string, db: SqlRunner): Promise<{ data: Record<string, unknown> } | null> {
    return db.one(`SELECT data FROM docstore.document_history WHERE id = $1 AND document_id = $2`, [entryId, documentId]);
  }

  /** The document row's id at this key, deleted or not. */
  async documentId(scope: DocumentScope, key: string): Promise<string | null> {
    const row = await this.db.one<{ id: string }>(
      `SELECT id FROM docstore.documents WHERE client_id = $1 AND environment = $2 AND context = $3 AND type = $4 AND key = $5`,
      [scope.clientId, scope.environment, scope.context, scope.type, key],
    );
    return row?.id ?? null;
  }
}
