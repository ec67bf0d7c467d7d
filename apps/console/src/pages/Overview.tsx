import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useMemo, useState } from 'react';
import { call } from '../api/client';
import type { Answer } from '../api/openapi';
import { formatCount, isEmpty, series, seriesLabel } from '../api/stats';
import { useSession } from '../auth/session';
import type { Credentials, Service } from '../auth/credentials';
import { ErrorNote } from '../components/ErrorNote';
import { SERVICE_TITLES } from '../Layout';
import SignIn from './SignIn';

const Chart = lazy(() => import('../components/Chart'));

type StatsAnswer =
  | Answer<'docstore', 'get', '/api/v1/client/{client}/stats'>
  | Answer<'gateway', 'get', '/api/Stats'>
  | Answer<'ingestion', 'get', '/DataInserterSales/api/sales/stats'>
  | Answer<'push', 'get', '/api/pushm/stats'>;

/** The windows every statistics endpoint takes. */
type StatsWindow = StatsAnswer['window'];

/** Each service's statistics endpoint. */
function fetchStats(service: Service, c: Credentials, window: StatsWindow): Promise<StatsAnswer> {
  switch (service) {
    case 'docstore':
      return call('docstore', c, 'get', '/api/v1/client/{client}/stats', { params: { path: { client: c.docstoreClient ?? '' }, query: { window } } });
    case 'gateway':
      return call('gateway', c, 'get', '/api/Stats', { params: { query: { window } } });
    case 'ingestion':
      return call('ingestion', c, 'get', '/DataInserterSales/api/sales/stats', { params: { query: { window } } });
    case 'push':
      return call('push', c, 'get', '/api/pushm/stats', { params: { query: { window } } });
  }
}

export default function Overview() {
  const { services } = useSession();
  const [window, setWindow] = useState<StatsWindow>('24h');
  if (services.length === 0) return <SignIn />;
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

function ServiceStats({ service, window }: { service: Service; window: StatsWindow }) {
  const { credentials } = useSession();
  const stats = useQuery({ queryKey: [service, 'stats', window], queryFn: () => fetchStats(service, credentials, window) });
  const title = `${SERVICE_TITLES[service]}, ${window === '24h' ? 'last 24 hours' : 'last 7 days'}`;
  const data = useMemo(() => (stats.data ? series(stats.data) : null), [stats.data]);
  const labels = useMemo(() => data?.series.map((s) => seriesLabel(s.name, service)) ?? [], [data, service]);
  return (
    <section aria-labelledby={`stats-${service}`} className="card">
      <h2 id={`stats-${service}`}>{SERVICE_TITLES[service]}</h2>
      {stats.isPending && <p aria-live="polite">Loading…</p>}
      <ErrorNote error={stats.error} />
      {data && isEmpty(data) && (
        <p className="chart-empty" data-testid={`empty-${service}`}>
          Nothing happened {window === '24h' ? 'in the last 24 hours' : 'in the last 7 days'}.
        </p>
      )}
      {data && !isEmpty(data) && (
        <>
          <Suspense fallback={<p>Loading the chart…</p>}>
            <Chart data={data} title={title} labels={labels} />
          </Suspense>
          <dl className="totals">
            {data.series.map((s, i) => (
              <div key={s.name}>
                <dt>{labels[i]}</dt>
                <dd>{formatCount(s.values.reduce((a, b) => a + b, 0))}</dd>
              </div>
            ))}
          </dl>
        </>
      )}
    </section>
  );
}
