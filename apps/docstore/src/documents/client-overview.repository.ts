import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { hourOf } from '@app/pagination';
import { ANY_SCOPE, type ScopeArea } from '../tokens/token-scopes';
import type { CollectionDto } from './client-overview.dto';
import { LIVE } from './documents.repository';

/** A collection holding live documents: GET …/collections. */
/** What GET …/stats counts per hour: writes by kind, finished webhook deliveries by outcome. */
export type OverviewKind = 'created' | 'updated' | 'deleted' | 'succeeded' | 'failed';

/**
 * SQL limiting rows to the areas (`'all'`: no limit), with the environment and context read by
 * `environment` and `context`; the areas' names are appended to `params`.
 */
export function within(areas: 'all' | ScopeArea[], environment: string, context: string, params: unknown[]): string {
  if (areas === 'all') return 'true';
  const one = (a: ScopeArea): string => {
    const parts = [
      ...(a.environment === ANY_SCOPE ? [] : [`${environment} = $${params.push(a.environment)}`]),
      ...(a.context === ANY_SCOPE ? [] : [`${context} = $${params.push(a.context)}`]),
    ];
    return `(${parts.join(' AND ')})`;
  };
  return `(${areas.map(one).join(' OR ')})`;
}

/** The reads that span a client's collections: what it holds, and its activity by hour. */
@Injectable()
export class ClientOverviewRepository {
  constructor(private readonly db: Sql) {}

  /**
   * The (environment, context, type) holding live documents in the areas, sorted, one page of them and
   * how many there are, in one statement over documents_scope_created_idx (client, environment, context, type, …).
   */
  async collections(clientId: string, areas: 'all' | ScopeArea[], limit: number, offset: number): Promise<{ rows: CollectionDto[]; total: number }> {
    const params: unknown[] = [clientId, limit, offset];
    const where = within(areas, 'environment', 'context', params);
    const row = await this.db.one<{ rows: CollectionDto[]; total: number }>(
      `WITH g AS (
         SELECT environment, context, type, count(*)::int AS documents FROM docstore.documents
          WHERE client_id = $1 AND ${LIVE} AND ${where} GROUP BY environment, context, type
       )
       SELECT (SELECT count(*)::int FROM g) AS total,
              coalesce((SELECT json_agg(p ORDER BY p.environment, p.context, p.type)
                          FROM (SELECT * FROM g ORDER BY environment, context, type LIMIT $2 OFFSET $3) p), '[]') AS rows`,
      params,
    );
    return row!;
  }

  /**
   * From `since` on, by UTC hour, in one statement: history entries (version 1 created, later ones
   * updated; index document_history_client_created_idx), documents soft-deleted and still deleted
   * (documents_client_deleted_idx), and the client's webhook deliveries that succeeded or failed by
   * the hour of their event (webhook_deliveries_webhook_created_idx), each within the areas. Webhook owners are client
   * ids in lower case, as every one is stored (clientIdOf).
   */
  activity(clientId: string, since: string, areas: 'all' | ScopeArea[]): Promise<Array<{ hour: string; kind: OverviewKind; n: number }>> {
    const params: unknown[] = [clientId, since];
    const documents = within(areas, 'environment', 'context', params);
    const events = within(areas, `(d.data->>'environment')`, `(d.data->>'context')`, params);
    return this.db.rows(
      `SELECT ${hourOf('created_at')} AS hour, CASE WHEN version = 1 THEN 'created' ELSE 'updated' END AS kind, count(*)::int AS n
         FROM docstore.document_history WHERE client_id = $1 AND created_at >= $2 AND ${documents} GROUP BY 1, 2
       UNION ALL
       SELECT ${hourOf('deleted_at')}, 'deleted', count(*)::int
         FROM docstore.documents WHERE client_id = $1 AND deleted_at IS NOT NULL AND deleted_at >= $2 AND ${documents} GROUP BY 1
       UNION ALL
       SELECT ${hourOf('d.created_at')}, d.status, count(*)::int
         FROM docstore.webhook_deliveries d
        WHERE d.webhook_id IN (SELECT w.id FROM docstore.webhooks w WHERE w.owner = $1::uuid::text)
          AND d.created_at >= $2 AND d.status IN ('succeeded', 'failed') AND ${events} GROUP BY 1, 2`,
      params,
    );
  }
}
