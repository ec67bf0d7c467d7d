import { Injectable } from '@nestjs/common';
import { AccessDeniedException } from '@app/errors';
import { fillHours, hourlyWindow, type HourlyWindowName, type PageQuery } from '@app/pagination';
import { DocstoreScope } from '../tokens/docstore-scopes';
import { scopeAreas, type ScopeArea, type TokenScopes } from '../tokens/token-scopes';
import type { ClientStatsDto, CollectionDto } from './client-overview.dto';
import { ClientOverviewRepository } from './client-overview.repository';

/**
 * The reads across a client's collections. They need `document:read`: from the token's permissions
 * (everything) or from its document rules (only their environments and contexts).
 */
@Injectable()
export class ClientOverviewService {
  constructor(private readonly repository: ClientOverviewRepository) {}

  collections(clientId: string, scopes: TokenScopes, page: PageQuery): Promise<{ rows: CollectionDto[]; total: number }> {
    return this.repository.collections(clientId, readable(scopes), page.perPage, page.offset);
  }

  async stats(clientId: string, scopes: TokenScopes, windowName?: HourlyWindowName): Promise<ClientStatsDto> {
    const areas = readable(scopes);
    const window = hourlyWindow(windowName);
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
  if (areas !== 'all' && areas.length === 0) throw new AccessDeniedException(`This token lacks the required scope: ${DocstoreScope.DocumentRead}.`);
  return areas;
}
