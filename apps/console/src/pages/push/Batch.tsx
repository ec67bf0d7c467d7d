import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { useApiMutation, useApiQuery } from '../../api/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { when } from '../../components/Json';
import { Table } from '../../components/Table';
import { countsText } from './types';

const BATCH = '/api/pushm/bulk/{batchId}';

/** One batch: counts by status, its items' results page by page, and cancel (what is still scheduled). */
export default function Batch() {
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const [page, setPage] = useState(1);
  const batch = useApiQuery('push', BATCH, { params: { path: { batchId: id }, query: { page, per_page: 50 } } }, { enabled: id !== '', refetchInterval: 2000 });
  const cancel = useApiMutation('push', 'delete', BATCH, () => ({ params: { path: { batchId: id } } }));
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
          <Table
            label="Items"
            caption="Items and their results"
            columns={[
              { header: '#', cell: (i) => i.index },
              { header: 'Device', cell: (i) => <code className="clip">{i.nm_push}</code> },
              { header: 'Platform', cell: (i) => i.platform },
              { header: 'Status', cell: (i) => i.status },
              { header: 'Due', cell: (i) => when(i.due_at) },
              { header: 'Sent', cell: (i) => when(i.sent_at) },
              { header: 'Attempts', cell: (i) => i.attempts },
              { header: 'Error', cell: (i) => i.error ?? '' },
            ]}
            rows={b.items.data}
            rowKey={(i) => i.id}
          />
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
