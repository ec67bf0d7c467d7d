import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { download } from '../../api/client';
import { useApiQuery } from '../../api/hooks';
import { useSession } from '../../auth/session';
import { ErrorNote } from '../../components/ErrorNote';
import { formatCount } from '../../api/stats';
import { CopyId } from '../../components/CopyButton';
import { StatusBadge } from '../../components/StatusBadge';
import { When } from '../../components/When';
import { Table } from '../../components/Table';
import type { IngestionSummary } from './types';

/** One run: its counts, its rejected rows with line numbers, and the error CSV. */
export default function Run() {
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const run = useApiQuery(
    'ingestion',
    '/DataInserterSales/api/sales/ingestions/{id}',
    { params: { path: { id } } },
    { enabled: id !== '', refetchInterval: (q) => (q.state.data?.status === 'running' ? 1000 : false) },
  );
  return (
    <>
      <h1>Ingestion run</h1>
      <ErrorNote error={run.error} />
      {run.data && <RunSummary run={run.data} />}
    </>
  );
}

const LABELS = { received: 'Received', inserted: 'Inserted', updated: 'Updated', rejected: 'Rejected', bytes: 'Bytes', duration_ms: 'Duration (ms)' };

export function RunSummary({ run }: { run: IngestionSummary }) {
  const { credentials } = useSession();
  const [error, setError] = useState<unknown>(null);
  const errors = run.errors;
  return (
    <section aria-labelledby={`run-${run.ingestion_id}`} className="card">
      <h2 id={`run-${run.ingestion_id}`}>
        Run <StatusBadge status={run.status} testId="run-status" />
      </h2>
      <p>
        Id <CopyId id={run.ingestion_id} what="run id" />
      </p>
      <dl className="totals">
        {(['received', 'inserted', 'updated', 'rejected', 'bytes', 'duration_ms'] as const).map((k) => (
          <div key={k}>
            <dt>{LABELS[k]}</dt>
            <dd>{formatCount(run[k])}</dd>
          </div>
        ))}
      </dl>
      <p>
        Started <When iso={run.started_at} />
        {run.finished_at ? (
          <>
            , finished <When iso={run.finished_at} />
          </>
        ) : (
          ', still running'
        )}
      </p>
      {run.failure && (
        <p role="alert" className="error">
          {run.failure}
        </p>
      )}
      {run.error_count > 0 && (
        <>
          <h3>Rejected rows</h3>
          <p>
            {formatCount(run.error_count)} problem{run.error_count === 1 ? '' : 's'}
            {errors.length === 0 && run.status === 'running'
              ? ' so far; they are listed when the run ends'
              : errors.length < run.error_count
                ? `; the first ${formatCount(errors.length)} are below, all of them are in the error CSV`
                : ''}
            .
          </p>
          <button
            type="button"
            onClick={() => {
              setError(null);
              download(
                'ingestion',
                credentials,
                '/DataInserterSales/api/sales/ingestions/{id}/errors',
                { params: { path: { id: run.ingestion_id } } },
                `ingestion-${run.ingestion_id}-errors.csv`,
              ).catch(setError);
            }}
          >
            Download the error CSV
          </button>
          <ErrorNote error={error} />
          <Table
            label="Rejected rows"
            columns={[
              { header: 'Line', cell: (e) => e.line },
              { header: 'Record', cell: (e) => e.record },
              { header: 'Field', cell: (e) => e.field || '—' },
              { header: 'Reason', cell: (e) => e.reason },
            ]}
            rows={errors}
            rowKey={(_, i) => i}
          />
        </>
      )}
    </section>
  );
}
