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
        columns={['Started', 'Status', 'Format', 'Received', 'Inserted', 'Updated', 'Rejected']}
        row={(r) => (
          <tr key={r.ingestion_id}>
            <td>
              <Link to={`/ingestion/run?id=${encodeURIComponent(r.ingestion_id)}`}>{when(r.started_at)}</Link>
            </td>
            <td>{r.status}</td>
            <td>{r.format}</td>
            <td>{r.received}</td>
            <td>{r.inserted}</td>
            <td>{r.updated}</td>
            <td>{r.rejected}</td>
          </tr>
        )}
      />
    </>
  );
}
