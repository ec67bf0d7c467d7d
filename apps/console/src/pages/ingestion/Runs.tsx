import { useSearchParams } from 'react-router';
import { Link } from 'react-router';
import { formatCount } from '../../api/stats';
import { StatusBadge } from '../../components/StatusBadge';
import { When } from '../../components/When';
import { List } from '../../components/List';
import { FilterSelect } from '../../components/FilterSelect';
import type { IngestionSummary } from './types';

const STATUSES: Array<IngestionSummary['status'] | ''> = ['', 'running', 'completed', 'failed', 'cancelled'];

/** The key's account's ingestions, newest first, with their counts. */
export default function Runs() {
  const [params, setParams] = useSearchParams();
  // The address may say anything: only a status the API knows is sent.
  const status = STATUSES.find((s) => s === params.get('status')) ?? '';
  return (
    <>
      <h1>Ingestion runs</h1>
      <FilterSelect
        className="field inline"
        id="run-status"
        label="Status"
        value={status}
        options={STATUSES}
        onChange={(value) => setParams(value ? { status: value } : {})}
      />
      <List
        service="ingestion"
        path="/DataInserterSales/api/sales/ingestions"
        init={{ params: { query: { status: status || undefined } } }}
        label="Ingestion runs"
        columns={[
          {
            header: 'Started',
            cell: (r) => (
              <Link to={`/ingestion/run?id=${encodeURIComponent(r.ingestion_id)}`}>
                <When iso={r.started_at} />
              </Link>
            ),
          },
          { header: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
          { header: 'Format', cell: (r) => r.format },
          { header: 'Received', cell: (r) => formatCount(r.received), className: 'num' },
          { header: 'Inserted', cell: (r) => formatCount(r.inserted), className: 'num' },
          { header: 'Updated', cell: (r) => formatCount(r.updated), className: 'num' },
          { header: 'Rejected', cell: (r) => formatCount(r.rejected), className: 'num' },
        ]}
        rowKey={(r) => r.ingestion_id}
      />
    </>
  );
}
