import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { nextPage, query, type Page } from '../api/paging';
import type { Service } from '../auth/credentials';
import { useSession } from '../auth/session';
import { ErrorNote } from './ErrorNote';
import { Table, type TableProps } from './Table';

interface ListProps<T> extends Omit<TableProps<T>, 'rows'> {
  service: Service;
  /** Path without the page parameters; `params` are added to it. */
  path: string;
  params?: Record<string, string | undefined>;
  /** `per_page` (Laravel envelope) or `limit` (gateway). */
  sizeParam?: 'per_page' | 'limit';
}

/**
 * A table that loads one page at a time (the API's own paging) and adds the next page on demand, so a
 * list of 10,000 rows never blocks the page: only what was asked for is fetched and rendered.
 */
export function List<T>({ service, path, params = {}, sizeParam = 'per_page', empty = 'Nothing here yet.', ...table }: ListProps<T>) {
  const { credentials } = useSession();
  const result = useInfiniteQuery({
    queryKey: [service, path, params, 'list'],
    initialPageParam: {} as Record<string, string>,
    queryFn: ({ pageParam }) => api<Page<T>>(service, credentials, `${path}${query({ ...params, [sizeParam]: '25', ...pageParam })}`),
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
        <button type="button" onClick={() => result.fetchNextPage()} disabled={result.isFetchingNextPage}>
          {result.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </div>
  );
}
