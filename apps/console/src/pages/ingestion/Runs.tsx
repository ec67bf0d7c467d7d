import { useSearchParams } from 'react-router';
import { Link } from 'react-router';
import { when } from '../../components/Json';
import { List } from '../../components/List';
import { SALES, type IngestionSummary } from './types';
import { FilterSelect } from '../../components/FilterSelect';

const STATUSES = ['', 'running', 'completed', 'failed', 'cancelled'];

/** The key's account's ingestions, newest first, with their counts. */
export default function Runs() {
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
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
      <List<IngestionSummary>
        service="ingestion"
        path={`${SALES}/ingestions`}
        params={{ status: status || undefined }}
        label="Ingestion runs"
        columns={[
          { header: 'Started', cell: (r) => <Link to={`/ingestion/run?id=${encodeURIComponent(r.ingestion_id)}`}>{when(r.started_at)}</Link> },
          { header: 'Status', cell: (r) => r.status },
          { header: 'Format', cell: (r) => r.format },
          { header: 'Received', cell: (r) => r.received },
          { header: 'Inserted', cell: (r) => r.inserted },
          { header: 'Updated', cell: (r) => r.updated },
          { header: 'Rejected', cell: (r) => r.rejected },
        ]}
        rowKey={(r) => r.ingestion_id}
      />
    </>
  );
}
