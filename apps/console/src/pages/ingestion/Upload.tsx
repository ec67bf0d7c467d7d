import { useRef, useState, type DragEvent } from 'react';
import { Link } from 'react-router';
import { authHeaders } from '../../api/client';
import { ApiError, errorMessage } from '../../api/errors';
import { useApiQuery } from '../../api/hooks';
import { useSession } from '../../auth/session';
import { ErrorNote } from '../../components/ErrorNote';
import { RunSummary } from './Run';
import { contentTypeOf, SALES, type IngestionSummary } from './types';

interface Progress {
  id: string;
  name: string;
  sent: number;
  total: number;
  done: boolean;
}

/**
 * Drag and drop (or choose) a CSV or JSON file. The body goes up with XMLHttpRequest, whose upload events give the
 * bytes sent; the rows come from polling GET …/ingestions/{id}, the id being chosen here (X-Ingestion-Id).
 */
export default function Upload() {
  const { credentials } = useSession();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<IngestionSummary | null>(null);
  const run = useApiQuery(
    'ingestion',
    '/DataInserterSales/api/sales/ingestions/{id}',
    { params: { path: { id: progress?.id ?? '' } } },
    {
      enabled: progress !== null && !result,
      refetchInterval: 500,
      retry: (count, e) => count < 20 && e instanceof ApiError && e.status === 404,
      retryDelay: 250,
    },
  );

  const start = (file: File) => {
    const id = crypto.randomUUID();
    setError(null);
    setResult(null);
    setProgress({ id, name: file.name, sent: 0, total: file.size, done: false });
    const xhr = new XMLHttpRequest();
    xhr.open('POST', SALES);
    for (const [k, v] of Object.entries(authHeaders('ingestion', credentials))) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader('Content-Type', contentTypeOf(file));
    xhr.setRequestHeader('X-Ingestion-Id', id);
    xhr.upload.onprogress = (e) => setProgress((p) => p && { ...p, sent: e.loaded, total: e.lengthComputable ? e.total : p.total });
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // a text answer stays text
      }
      setProgress((p) => p && { ...p, sent: p.total, done: true });
      if (xhr.status >= 200 && xhr.status < 300) setResult(body as IngestionSummary);
      else setError(new ApiError(xhr.status, errorMessage(xhr.status, xhr.statusText, body), body));
    };
    xhr.onerror = () => {
      setProgress((p) => p && { ...p, done: true });
      setError(new Error('The upload could not reach the service.'));
    };
    xhr.send(file);
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const file = e.dataTransfer.files[0];
    if (file) start(file);
  };
  const live = result ?? run.data;
  const percent = progress && progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 0;

  return (
    <>
      <h1>Upload sales</h1>
      <div
        className={`drop${over ? ' over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>Drop a CSV (semicolon-separated) or JSON file here, or</p>
        <label htmlFor="sales-file" className="button">
          Choose a file
        </label>
        <input
          ref={input}
          id="sales-file"
          className="file"
          type="file"
          accept=".csv,.json,text/csv,application/json"
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) start(file);
            e.target.value = '';
          }}
        />
      </div>
      {progress && (
        <section aria-labelledby="progress-title" className="card">
          <h2 id="progress-title">{progress.name}</h2>
          <label htmlFor="bytes-progress">
            Bytes sent: {progress.sent} of {progress.total} ({percent}%)
          </label>
          <progress id="bytes-progress" max={progress.total || 1} value={progress.sent} />
          <p aria-live="polite" data-testid="rows-progress">
            Rows: {live ? `${live.received} received, ${live.inserted} inserted, ${live.updated} updated, ${live.rejected} rejected` : 'waiting…'}
            {live ? ` (${live.status}${live.stage ? `, ${live.stage}` : ''})` : ''}
          </p>
        </section>
      )}
      <ErrorNote error={error} />
      {result && (
        <>
          <RunSummary run={result} />
          <p>
            <Link to={`/ingestion/run?id=${encodeURIComponent(result.ingestion_id)}`}>Open this run</Link>
          </p>
        </>
      )}
    </>
  );
}
