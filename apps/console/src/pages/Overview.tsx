import { lazy, Suspense, useState } from 'react';
import { Link } from 'react-router';
import { useApiQuery } from '../api/hooks';
import { series, type StatsAnswer } from '../api/stats';
import { useSession } from '../auth/session';
import type { Service } from '../auth/credentials';
import { ErrorNote } from '../components/ErrorNote';
import { SERVICE_TITLES } from '../Layout';

const Chart = lazy(() => import('../components/Chart'));

/** Each service's statistics endpoint. */
export function statsPath(service: Service, clientId: string | undefined, window: string): string {
  switch (service) {
    case 'docstore':
      return `/api/v1/client/${encodeURIComponent(clientId ?? '')}/stats?window=${window}`;
    case 'gateway':
      return `/api/Stats?window=${window}`;
    case 'ingestion':
      return `/DataInserterSales/api/sales/stats?window=${window}`;
    case 'push':
      return `/api/pushm/stats?window=${window}`;
  }
}

export default function Overview() {
  const { services } = useSession();
  const [window, setWindow] = useState<'24h' | '7d'>('24h');
  if (services.length === 0) {
    return (
      <>
        <h1>Services console</h1>
        <p>
          Documents, messages, uploads and pushes of the three services in one place. <Link to="/signin">Sign in</Link> with the credentials you have.
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Overview</h1>
      <fieldset className="inline">
        <legend>Window</legend>
        {(['24h', '7d'] as const).map((w) => (
          <label key={w}>
            <input type="radio" name="window" value={w} checked={window === w} onChange={() => setWindow(w)} /> {w === '24h' ? 'Last 24 hours' : 'Last 7 days'}
          </label>
        ))}
      </fieldset>
      {services.map((s) => (
        <ServiceStats key={s} service={s} window={window} />
      ))}
    </>
  );
}

function ServiceStats({ service, window }: { service: Service; window: string }) {
  const { credentials } = useSession();
  const stats = useApiQuery<StatsAnswer>(service, statsPath(service, credentials.docstoreClient, window));
  const title = `${SERVICE_TITLES[service]}, ${window === '24h' ? 'last 24 hours' : 'last 7 days'}`;
  const data = stats.data ? series(stats.data) : null;
  return (
    <section aria-labelledby={`stats-${service}`} className="card">
      <h2 id={`stats-${service}`}>{SERVICE_TITLES[service]}</h2>
      {stats.isPending && <p aria-live="polite">Loading…</p>}
      <ErrorNote error={stats.error} />
      {data && (
        <>
          <Suspense fallback={<p>Loading the chart…</p>}>
            <Chart data={data} title={title} />
          </Suspense>
          <dl className="totals">
            {data.series.map((s) => (
              <div key={s.name}>
                <dt>{s.name}</dt>
                <dd>{s.values.reduce((a, b) => a + b, 0)}</dd>
              </div>
            ))}
          </dl>
        </>
      )}
    </section>
  );
}
