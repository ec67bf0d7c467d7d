import { useInfiniteQuery } from '@tanstack/react-query';
import { call } from '../api/client';
import type { Init, ListPath, Row } from '../api/openapi';
import { nextPage, type PageEnvelope } from '../api/paging';
import type { Service } from '../auth/credentials';
import { useSession } from '../auth/session';
import { ErrorNote } from './ErrorNote';
import { Table, type TableProps } from './Table';

interface ListProps<S extends Service, P extends ListPath<S>> extends Omit<TableProps<Row<S, P>>, 'rows'> {
  service: S;
  /** One of the service's list operations; its rows type the columns. */
  path: P;
  /** Its parameters without the page ones, which the list adds. */
  init: Init<S, 'get', P>;
  /** `per_page` (Laravel envelope) or `limit` (gateway). */
  sizeParam?: 'per_page' | 'limit';
}

/**
 * A table that loads one page at a time (the API's own paging) and adds the next page on demand, so a
 * list of 10,000 rows never blocks the page: only what was asked for is fetched and rendered.
 */
export function List<S extends Service, P extends ListPath<S>>({
  service,
  path,
  init,
  sizeParam = 'per_page',
  empty = 'Nothing here yet.',
  ...table
}: ListProps<S, P>) {
  const { credentials } = useSession();
  const result = useInfiniteQuery({
    queryKey: [service, path, init, 'list'],
    initialPageParam: null as ReturnType<typeof nextPage>,
    queryFn: async ({ pageParam }) => {
      const params = (init as { params?: { query?: object } }).params;
      const paged = { ...init, params: { ...params, query: { ...params?.query, [sizeParam]: 25, ...pageParam } } } as Init<S, 'get', P>;
      // A list path's answer has `data` rows and one of the two paging envelopes (ListPath).
      return (await call<S, 'get', P>(service, credentials, 'get', path, paged)) as PageEnvelope & { data: Row<S, P>[]; total?: number };
    },
    getNextPageParam: (last) => nextPage(last) ?? undefined,
  });
  if (result.isPending) return <p aria-live="polite">Loading…</p>;
  if (result.isError) return <ErrorNote error={result.error} />;
  const items = result.data.pages.flatMap((p) => p.data);
  const total = result.data.pages[0]?.total;
  return (
    <div className="list">
      <p className="muted" aria-live="polite">
        {items.length} shown{typeof total === 'number' ? ` of ${total}` : ''}
      </p>
      <Table {...table} rows={items} empty={empty} />
      {result.hasNextPage && (
        <button type="button" onClick={() => void result.fetchNextPage()} disabled={result.isFetchingNextPage}>
          {result.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </div>
  );
}
