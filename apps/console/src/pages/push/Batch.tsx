import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { useApiMutation, useApiQuery } from '../../api/hooks';
import { query, type Page } from '../../api/paging';
import { ErrorNote } from '../../components/ErrorNote';
import { when } from '../../components/Json';
import { batchPath, countsText, type BatchSummary } from './types';

interface Item {
  index: number;
  id: string;
  status: string;
  platform: string;
  nm_push: string;
  title: string;
  body: string;
  due_at: string;
  attempts: number;
  sent_at: string | null;
  error: string | null;
}

/** One batch: counts by status, its items' results page by page, and cancel (what is still scheduled). */
export default function Batch() {
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const [page, setPage] = useState(1);
  const batch = useApiQuery<BatchSummary & { items: Page<Item> & { last_page: number } }>('push', id ? `${batchPath(id)}${query({ page, per_page: 50 })}` : null, {
    refetchInterval: 2000,
  });
  const cancel = useApiMutation<BatchSummary & { cancelled_now: number }, void>('push', () => ({ method: 'DELETE', path: batchPath(id) }));
  const b = batch.data;
  return (
    <>
      <h1>Push batch</h1>
      <ErrorNote error={batch.error ?? cancel.error} />
      {b && (
        <>
          <p>
            <code>{b.batch_id}</code>, created {when(b.created_at)}
            {b.cancelled_at ? `, cancelled ${when(b.cancelled_at)}` : ''}
          </p>
          <p data-testid="batch-counts">Counts: {countsText(b.counts)}</p>
          {cancel.data && <p role="status">Cancelled now: {cancel.data.cancelled_now}.</p>}
          <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending || Boolean(b.cancelled_at)}>
            Cancel what is still scheduled
          </button>
          <div className="table-wrap" role="region" aria-label="Items" tabIndex={0}>
            <table>
              <caption className="sr-only">Items and their results</caption>
              <thead>
                <tr>
                  {['#', 'Device', 'Platform', 'Status', 'Due', 'Sent', 'Attempts', 'Error'].map((c) => (
                    <th key={c} scope="col">
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {b.items.data.map((i) => (
                  <tr key={i.id}>
                    <td>{i.index}</td>
                    <td>
                      <code className="clip">{i.nm_push}</code>
                    </td>
                    <td>{i.platform}</td>
                    <td>{i.status}</td>
                    <td>{when(i.due_at)}</td>
                    <td>{when(i.sent_at)}</td>
                    <td>{i.attempts}</td>
                    <td>{i.error ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav aria-label="Item pages" className="inline">
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              Previous page
            </button>
            <span>
              Page {page} of {b.items.last_page || 1}
            </span>
            <button type="button" disabled={page >= (b.items.last_page || 1)} onClick={() => setPage(page + 1)}>
              Next page
            </button>
          </nav>
        </>
      )}
    </>
  );
}
