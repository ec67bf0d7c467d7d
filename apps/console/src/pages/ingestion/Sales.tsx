import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import type { components } from '../../api/generated/ingest-push';
import { useApiQuery } from '../../api/hooks';
import { formatAmount, formatCount } from '../../api/stats';
import { ErrorNote } from '../../components/ErrorNote';
import { FilterSelect } from '../../components/FilterSelect';
import { when } from '../../components/Json';
import { StatusBadge } from '../../components/StatusBadge';
import { Table } from '../../components/Table';

type SummaryRow = components['schemas']['SalesSummaryRow'];
type Group = components['schemas']['SalesSummary']['group_by'];

const GROUPS: Group[] = ['day', 'month', 'store', 'product', 'category', 'brand', 'state', 'payment'];
const FILTERS = ['from', 'to', 'store', 'customer'] as const;
const PAGE = 50;

/** The account's sale lines (filters, pages newest first) and their totals by a grouping, as bars and a table. */
export default function Sales() {
  const [params, setParams] = useSearchParams();
  const filter = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) || undefined])) as Partial<Record<(typeof FILTERS)[number], string>>;
  const group = GROUPS.find((g) => g === params.get('group_by')) ?? 'day';
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])));
  // The cursors of the pages before this one: Back pops one.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setCursors([]);
    setParams(Object.fromEntries(Object.entries({ ...draft, group_by: group }).filter(([, v]) => v)));
  };
  const lines = useApiQuery('ingestion', '/DataInserterSales/api/sales', { params: { query: { ...filter, cursor, limit: PAGE } } });
  const summary = useApiQuery('ingestion', '/DataInserterSales/api/sales/summary', { params: { query: { ...filter, group_by: group, limit: 50 } } });
  return (
    <>
      <h1>Sales</h1>
      <form onSubmit={submit} className="inline" aria-label="Filter sales">
        {FILTERS.map((f) => (
          <div className="field" key={f}>
            <label htmlFor={`sales-${f}`}>{f === 'customer' ? 'Customer (CPF/CNPJ)' : f[0].toUpperCase() + f.slice(1)}</label>
            <input
              id={`sales-${f}`}
              value={draft[f]}
              aria-describedby={f === 'from' || f === 'to' ? 'sales-dates-hint' : undefined}
              onChange={(e) => setDraft({ ...draft, [f]: e.target.value })}
            />
          </div>
        ))}
        <button type="submit">Apply</button>
        <p className="hint" id="sales-dates-hint">
          From and To take an order date (2026-11-01) or a date-time with its offset.
        </p>
      </form>

      <section className="card" aria-labelledby="sales-summary">
        <h2 id="sales-summary">Totals</h2>
        <FilterSelect
          className="field inline"
          id="sales-group"
          label="By"
          value={group}
          options={GROUPS}
          onChange={(value) => setParams({ ...Object.fromEntries(params), group_by: value })}
        />
        <ErrorNote error={summary.error} />
        {summary.data && <Bars rows={summary.data.data} />}
      </section>

      <section aria-labelledby="sales-lines">
        <h2 id="sales-lines">Lines, newest first</h2>
        <ErrorNote error={lines.error} />
        {lines.data && (
          <>
            <Table
              label="Sale lines"
              rows={lines.data.data}
              rowKey={(l) => `${l.OrderId}|${l.ProductId}`}
              empty="No sale lines."
              columns={[
                { header: 'Order date', cell: (l) => when(l.OrderDate) },
                { header: 'Order', cell: (l) => l.OrderId },
                { header: 'Product', cell: (l) => l.ProductName ?? l.ProductId },
                { header: 'Store', cell: (l) => l.StoreId },
                { header: 'Quantity', cell: (l) => (l.ProductQuantity === null ? '—' : formatCount(l.ProductQuantity)), className: 'num' },
                { header: 'Price', cell: (l) => formatAmount(l.ProductPrice), className: 'num' },
                { header: 'Status', cell: (l) => <StatusBadge status={l.OrderStatus} /> },
              ]}
            />
            <div className="inline">
              <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
                Newer
              </button>
              <button type="button" disabled={!lines.data.next_cursor} onClick={() => setCursors([...cursors, lines.data.next_cursor!])}>
                Older
              </button>
            </div>
          </>
        )}
      </section>
    </>
  );
}

/** Revenue per group as horizontal bars (widths relative to the largest), with the group's totals beside each. */
function Bars({ rows }: { rows: SummaryRow[] }) {
  const max = Math.max(1, ...rows.map((r) => Math.abs(Number(r.revenue))));
  return (
    <Table
      label="Totals by group"
      rows={rows}
      rowKey={(r) => String(r.key)}
      empty="Nothing in this range."
      columns={[
        { header: 'Group', cell: (r) => r.key ?? '(empty)' },
        {
          header: 'Revenue',
          // The bar is a <meter> (its length from its value, with no inline style under the CSP); the number says it all.
          cell: (r) => (
            <span className="bar-cell">
              {formatAmount(r.revenue)}
              <meter min={0} max={max} value={Math.abs(Number(r.revenue))} aria-hidden="true" />
            </span>
          ),
        },
        { header: 'Orders', cell: (r) => formatCount(r.orders), className: 'num' },
        { header: 'Lines', cell: (r) => formatCount(r.lines), className: 'num' },
        { header: 'Quantity', cell: (r) => formatCount(r.quantity), className: 'num' },
        { header: 'Discount', cell: (r) => formatAmount(r.discount), className: 'num' },
        { header: 'Average ticket', cell: (r) => formatAmount(r.average_ticket), className: 'num' },
      ]}
    />
  );
}
