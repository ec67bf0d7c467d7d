import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { download } from '../../api/client';
import { useApiQuery } from '../../api/hooks';
import { useSession } from '../../auth/session';
import { ErrorNote } from '../../components/ErrorNote';
import { when } from '../../components/Json';
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

export function RunSummary({ run }: { run: IngestionSummary }) {
  const { credentials } = useSession();
  const [error, setError] = useState<unknown>(null);
  const errors = run.errors;
  return (
    <section aria-labelledby={`run-${run.ingestion_id}`} className="card">
      <h2 id={`run-${run.ingestion_id}`}>
        Run <code>{run.ingestion_id}</code>: {run.status}
      </h2>
      <dl className="totals">
        {(['received', 'inserted', 'updated', 'rejected', 'bytes', 'duration_ms'] as const).map((k) => (
          <div key={k}>
            <dt>{k.replace('_ms', ' (ms)')}</dt>
            <dd>{run[k]}</dd>
          </div>
        ))}
      </dl>
      <p>
        Started {when(run.started_at)}, finished {when(run.finished_at)}
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
            {run.error_count} problem{run.error_count === 1 ? '' : 's'}
            {errors.length < run.error_count ? `; the first ${errors.length} are below, all of them are in the error CSV` : ''}.
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
