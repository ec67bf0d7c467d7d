import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { useApiMutation, useApiQuery } from '../../api/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { useConfirm } from '../../components/Confirm';
import { CopyId } from '../../components/CopyButton';
import { StatusBadge, StatusCounts } from '../../components/StatusBadge';
import { When } from '../../components/When';
import { formatCount } from '../../api/stats';
import { Table } from '../../components/Table';

const BATCH = '/api/pushm/bulk/{batchId}';

/** One batch: counts by status, its items' results page by page, and cancel (what is still scheduled). */
export default function Batch() {
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const [page, setPage] = useState(1);
  const batch = useApiQuery('push', BATCH, { params: { path: { batchId: id }, query: { page, per_page: 50 } } }, { enabled: id !== '', refetchInterval: 2000 });
  const cancel = useApiMutation('push', 'delete', BATCH, () => ({ params: { path: { batchId: id } } }));
  const b = batch.data;
  const [confirm, dialog] = useConfirm();
  return (
    <>
      <h1>Push batch</h1>
      <ErrorNote error={batch.error ?? cancel.error} />
      {b && (
        <>
          <p>
            <CopyId id={b.batch_id} what="batch id" />, created <When iso={b.created_at} />
            {b.cancelled_at ? (
              <>
                , cancelled <When iso={b.cancelled_at} />
              </>
            ) : null}
          </p>
          <p>
            Counts: <StatusCounts counts={b.counts} testId="batch-counts" />
          </p>
          <p data-testid="batch-opens">
            Opened: {formatCount(b.opened)}
            {b.open_rate === null ? '' : ` (open rate ${(b.open_rate * 100).toFixed(1)} %)`}
          </p>
          <p>
            Throttle: {b.throttle_per_minute === null ? 'none' : `${formatCount(b.throttle_per_minute)} a minute`}
            {b.expected_finish_at ? (
              <>
                , expected to finish <When iso={b.expected_finish_at} />
              </>
            ) : null}
          </p>
          {cancel.data && <p role="status">Cancelled now: {cancel.data.cancelled_now}.</p>}
          {dialog}
          <button
            type="button"
            onClick={() =>
              confirm({
                title: 'Cancel this batch?',
                body: <p>Every item still scheduled is cancelled and never sent. Items already sent or being sent are not affected.</p>,
                action: 'Cancel the scheduled items',
                run: () => cancel.mutate(),
              })
            }
            disabled={cancel.isPending || Boolean(b.cancelled_at)}
          >
            Cancel what is still scheduled
          </button>
          <Table
            label="Items"
            caption="Items and their results"
            columns={[
              { header: '#', cell: (i) => i.index },
              { header: 'Device', cell: (i) => <code className="clip">{i.nm_push}</code> },
              { header: 'Platform', cell: (i) => i.platform },
              { header: 'Status', cell: (i) => <StatusBadge status={i.status} /> },
              { header: 'Due', cell: (i) => <When iso={i.due_at} /> },
              { header: 'Sent', cell: (i) => <When iso={i.sent_at} /> },
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
