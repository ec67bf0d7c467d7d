import { Injectable } from '@nestjs/common';
import { ForbiddenException } from '@app/errors';
import { fillHours, hourlyWindow, type HourlyWindowName, type PageQuery } from '@app/pagination';
import { DocstoreScope } from '../tokens/docstore-scopes';
import { scopeAreas, type ScopeArea, type TokenScopes } from '../tokens/token-scopes';
import { ClientOverviewRepository, type CollectionView } from './client-overview.repository';

/** GET …/stats: per UTC hour, the document writes and the finished webhook deliveries the token may see, the current hour last. */
export interface ClientStats {
  client_id: string;
  window: HourlyWindowName;
  since: string;
  data: Array<{
    hour: string;
    total: number;
    by_status: { created: number; updated: number; deleted: number };
    webhook_deliveries: { total: number; by_status: { succeeded: number; failed: number } };
  }>;
}

/**
 * The reads across a client's collections. They need `document:read`: from the token's permissions
 * (everything) or from its document rules (only their environments and contexts).
 */
@Injectable()
export class ClientOverviewService {
  constructor(private readonly repository: ClientOverviewRepository) {}

  collections(clientId: string, scopes: TokenScopes, page: PageQuery): Promise<{ rows: CollectionView[]; total: number }> {
    return this.repository.collections(clientId, readable(scopes), page.perPage, page.offset);
  }

  async stats(clientId: string, scopes: TokenScopes, query: Record<string, unknown>): Promise<ClientStats> {
    const areas = readable(scopes);
    const window = hourlyWindow(query.window);
    const rows = await this.repository.activity(clientId, window.since, areas);
    const empty = () => ({
      total: 0,
      by_status: { created: 0, updated: 0, deleted: 0 },
      webhook_deliveries: { total: 0, by_status: { succeeded: 0, failed: 0 } },
    });
    const data = fillHours(window, rows, empty, (bucket, row) => {
      if (row.kind === 'succeeded' || row.kind === 'failed') {
        bucket.webhook_deliveries.by_status[row.kind] += row.n;
        bucket.webhook_deliveries.total += row.n;
      } else {
        bucket.by_status[row.kind] += row.n;
        bucket.total += row.n;
      }
    });
    return { client_id: clientId, window: window.window, since: window.since, data };
  }
}

function readable(scopes: TokenScopes): 'all' | ScopeArea[] {
  const areas = scopeAreas(scopes, DocstoreScope.DocumentRead);
  if (areas !== 'all' && areas.length === 0) throw new ForbiddenException(`This token lacks the required scope: ${DocstoreScope.DocumentRead}.`);
  return areas;
}
