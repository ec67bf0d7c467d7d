import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type DragEvent } from 'react';
import { Link } from 'react-router';
import { authHeaders, call } from '../../api/client';
import { ApiError, errorMessage } from '../../api/errors';
import { useApiQuery } from '../../api/hooks';
import { useSession } from '../../auth/session';
import { useConfirm } from '../../components/Confirm';
import { ErrorNote } from '../../components/ErrorNote';
import { StatusBadge } from '../../components/StatusBadge';
import { formatCount } from '../../api/stats';
import { RunSummary } from './Run';
import { contentTypeOf, SALES, type IngestionSummary } from './types';

interface Progress {
  id: string;
  name: string;
  sent: number;
  total: number;
  done: boolean;
  /** When the upload started and recent (time, bytes) samples, for the speed. */
  startedAt: number;
  samples: Array<[number, number]>;
}

/** Bytes as megabytes (10^6), one decimal, in the viewer's locale: "22.5 MB". */
export function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toLocaleString(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 })} MB`;
}

/** Bytes per second over the last few seconds of samples (the whole upload until then). */
export function speedOf(samples: Array<[number, number]>): number {
  if (samples.length < 2) return 0;
  const [t0, b0] = samples[0];
  const [t1, b1] = samples[samples.length - 1];
  return t1 > t0 ? ((b1 - b0) * 1000) / (t1 - t0) : 0;
}

/** Seconds as people say them: "45 s", "3 min 20 s", "1 h 5 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
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
  const [cancelling, setCancelling] = useState(false);
  const queryClient = useQueryClient();
  const [confirm, dialog] = useConfirm();
  const run = useApiQuery(
    'ingestion',
    '/DataInserterSales/api/sales/ingestions/{id}',
    { params: { path: { id: progress?.id ?? '' } } },
    {
      enabled: progress !== null && !result,
      // Until the run has ended (a cancelled upload ends without a summary of its own).
      refetchInterval: (q) => (q.state.data && q.state.data.status !== 'running' ? false : 500),
      retry: (count, e) => count < 20 && e instanceof ApiError && e.status === 404,
      retryDelay: 250,
    },
  );

  const start = (file: File) => {
    const id = crypto.randomUUID();
    setError(null);
    setResult(null);
    setCancelling(false);
    cancelRequested.current = false;
    const now = Date.now();
    setProgress({ id, name: file.name, sent: 0, total: file.size, done: false, startedAt: now, samples: [[now, 0]] });
    const xhr = new XMLHttpRequest();
    xhr.open('POST', SALES);
    for (const [k, v] of Object.entries(authHeaders('ingestion', credentials))) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader('Content-Type', contentTypeOf(file));
    xhr.setRequestHeader('X-Ingestion-Id', id);
    xhr.upload.onprogress = (e) =>
      setProgress((p) => {
        if (!p) return p;
        const t = Date.now();
        // The last 5 s of samples make the speed: recent enough to follow the link, smooth enough to read.
        const samples = [...p.samples.filter(([at]) => t - at <= 5000), [t, e.loaded] as [number, number]];
        return { ...p, sent: e.loaded, total: e.lengthComputable ? e.total : p.total, samples };
      });
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // a text answer stays text
      }
      setProgress((p) => p && { ...p, sent: p.total, done: true });
      if (xhr.status >= 200 && xhr.status < 300) setResult(body as IngestionSummary);
      // A cancel asked for here is answered 409: the run's status below says it, not an error.
      else if (!(xhr.status === 409 && cancelRequested.current)) setError(new ApiError(xhr.status, errorMessage(xhr.status, xhr.statusText, body), body));
      // The runs list and this run's page read fresh counts.
      void queryClient.invalidateQueries({ queryKey: ['ingestion'] });
    };
    xhr.onerror = () => {
      setProgress((p) => p && { ...p, done: true });
      setError(new Error('The upload could not reach the service.'));
    };
    xhr.send(file);
  };

  const cancelRequested = useRef(false);
  /** Cancels the ingestion on the service (DELETE …/ingestions/{id}); a 404 means the body has not reached it yet. */
  const cancel = async (id: string) => {
    cancelRequested.current = true;
    setCancelling(true);
    setError(null);
    for (let attempt = 0; ; attempt++) {
      try {
        await call('ingestion', credentials, 'delete', '/DataInserterSales/api/sales/ingestions/{id}', { params: { path: { id } } });
        break;
      } catch (e) {
        if (e instanceof ApiError && e.status === 404 && attempt < 20) {
          await new Promise((r) => setTimeout(r, 250));
          continue;
        }
        // 409: it had already ended; the status below says how.
        if (!(e instanceof ApiError && e.status === 409)) setError(e);
        break;
      }
    }
    await queryClient.invalidateQueries({ queryKey: ['ingestion'] });
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const file = e.dataTransfer.files[0];
    if (file) start(file);
  };
  const live = result ?? run.data;
  const percent = progress && progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 0;
  const speed = progress ? speedOf(progress.samples) : 0;
  const eta = progress && speed > 0 && !progress.done ? (progress.total - progress.sent) / speed : null;
  const running = progress !== null && !result && (live?.status ?? 'running') === 'running';

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
          <label htmlFor="bytes-progress" data-testid="bytes-progress-text">
            {megabytes(progress.sent)} of {megabytes(progress.total)} sent ({percent}%)
            {running && !progress.done && speed > 0 ? `, ${megabytes(speed)}/s` : ''}
            {running && eta !== null ? `, about ${duration(eta)} left` : ''}
          </label>
          <progress id="bytes-progress" max={progress.total || 1} value={progress.sent} />
          <p aria-live="polite" data-testid="rows-progress">
            Rows:{' '}
            {live
              ? `${formatCount(live.received)} received, ${formatCount(live.inserted)} inserted, ${formatCount(live.updated)} updated, ${formatCount(live.rejected)} rejected`
              : 'waiting…'}
          </p>
          {live && (
            <p>
              Run <StatusBadge status={live.status} testId="upload-status" />
              {live.stage ? ` ${live.stage}` : ''}
            </p>
          )}
          {running && (
            <button
              type="button"
              className="danger"
              disabled={cancelling}
              onClick={() =>
                confirm({
                  title: `Cancel the upload of ${progress.name}?`,
                  body: <p>The service stops this ingestion and keeps none of its rows. You can upload the file again later.</p>,
                  action: 'Cancel the upload',
                  run: () => void cancel(progress.id),
                })
              }
            >
              {cancelling ? 'Cancelling…' : 'Cancel upload'}
            </button>
          )}
          {dialog}
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
