import { lazy, Suspense, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useApiQuery } from '../../api/hooks';
import { formatAmount, formatCount, isEmpty } from '../../api/stats';
import { usageSeries, type Usage } from '../../api/usage';
import { ErrorNote } from '../../components/ErrorNote';
import { Table } from '../../components/Table';

const Chart = lazy(() => import('../../components/Chart'));

type UsageDay = Usage['data'][number];

/** A cost in the viewer's locale, four decimals for a fraction of a cent: "1,234.50 USD", "0.0042 USD". */
const money = (value: number, currency: string) => `${formatAmount(value, value !== 0 && Math.abs(value) < 0.01 ? 4 : 2)} ${currency}`;

/** The phone's usage by day and pricing category (GET api/Usage): a chart, the totals, and the days with their cost. */
export default function UsagePage() {
  const [params, setParams] = useSearchParams();
  const [range, setRange] = useState({ from: params.get('from') ?? '', to: params.get('to') ?? '' });
  const query = { from: params.get('from') || undefined, to: params.get('to') || undefined };
  const usage = useApiQuery('gateway', '/api/Usage', { params: { query } });
  const data = usage.data;
  const series = useMemo(() => (data ? usageSeries(data) : undefined), [data]);
  return (
    <>
      <h1>Usage</h1>
      <form
        className="card inline"
        aria-label="Range"
        onSubmit={(e) => {
          e.preventDefault();
          setParams(Object.fromEntries(Object.entries(range).filter(([, v]) => v !== '')));
        }}
      >
        <div className="field">
          <label htmlFor="usage-from">From (UTC day)</label>
          <input id="usage-from" type="date" value={range.from} onChange={(e) => setRange({ ...range, from: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="usage-to">To (UTC day)</label>
          <input id="usage-to" type="date" value={range.to} onChange={(e) => setRange({ ...range, to: e.target.value })} />
        </div>
        <button type="submit">Show</button>
      </form>
      {usage.isPending && <p aria-live="polite">Loading…</p>}
      <ErrorNote error={usage.error} />
      {data && series && (
        <section aria-labelledby="usage-title" className="card">
          <h2 id="usage-title">
            {data.from} to {data.to}
          </h2>
          {isEmpty(series) ? (
            <p className="chart-empty">No messages in this range.</p>
          ) : (
            <Suspense fallback={<p>Loading the chart…</p>}>
              <Chart data={series} labels={series.labels} unit="day" title="Messages and billable messages per day" />
            </Suspense>
          )}
          <dl className="totals">
            <div>
              <dt>Messages</dt>
              <dd>{formatCount(data.totals.messages)}</dd>
            </div>
            <div>
              <dt>Billable</dt>
              <dd>{formatCount(data.totals.billable)}</dd>
            </div>
            <div>
              <dt>Cost</dt>
              <dd>{money(data.totals.cost, data.currency)}</dd>
            </div>
          </dl>
          <Table<UsageDay>
            label="Days"
            rows={data.data.filter((d) => d.messages > 0).reverse()}
            rowKey={(d) => d.date}
            empty="No messages in this range."
            columns={[
              { header: 'Day', cell: (d) => d.date },
              { header: 'Messages', cell: (d) => formatCount(d.messages), className: 'num' },
              { header: 'Billable', cell: (d) => formatCount(d.billable), className: 'num' },
              {
                header: 'By category',
                cell: (d) =>
                  d.categories.map((c) => `${c.category.replace(/_/g, ' ')}: ${formatCount(c.billable)} of ${formatCount(c.messages)} billable`).join(', '),
              },
              { header: 'Cost', cell: (d) => money(d.cost, data.currency), className: 'num' },
            ]}
          />
        </section>
      )}
    </>
  );
}
