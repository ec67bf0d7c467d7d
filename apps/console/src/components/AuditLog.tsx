import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import type { Row } from '../api/openapi';
import { useSession } from '../auth/session';
import { List } from './List';
import { StatusBadge } from './StatusBadge';
import type { Column } from './Table';
import { When } from './When';

/** An audit record, as every service answers it (libs/audit's AuditRecordDto, the same schema in each OpenAPI). */
type AuditRow = Row<'docstore', '/api/v1/client/{client}/audit'>;

const fields = (value: AuditRow['before']): ReactNode => (value ? <code className="wrap">{JSON.stringify(value)}</code> : '—');

/** The columns of every service's audit page: when, what, who and from where, and the changed fields. */
const COLUMNS: Column<AuditRow>[] = [
  { header: 'When', cell: (r) => <When iso={r.at} />, className: 'nowrap' },
  { header: 'Action', cell: (r) => <StatusBadge status={r.action} /> },
  { header: 'Target', cell: (r) => <code className="wrap">{`${r.target_type} ${r.target_id}`}</code> },
  { header: 'Who', cell: (r) => r.actor.name ?? r.actor.credential_id },
  { header: 'From', cell: (r) => r.actor.ip ?? '—' },
  { header: 'Before', cell: (r) => fields(r.before) },
  { header: 'After', cell: (r) => fields(r.after) },
];

/** The `action` filter's text, sent only when it looks like an action (`token.revoked`). */
const actionFilter = (value: string | null): string | undefined => (value && /^[a-z_]+\.[a-z_]+$/.test(value) ? value : undefined);

/** What each service records. */
const RECORDS = {
  docstore: 'Changes to the client’s tokens, webhooks and schemas.',
  gateway: 'Changes to the account’s API keys, webhooks, profiles, opt-outs and opt-out keywords.',
  ingestion: 'Changes to the account’s keys, push tokens and push settings, customer erasures and cancels.',
} as const;

/** A service's audit log, newest first, filtered by action: the one page of the three services. */
export function AuditLog({ service }: { service: keyof typeof RECORDS }) {
  const { credentials } = useSession();
  const [params, setParams] = useSearchParams();
  const action = actionFilter(params.get('action'));
  const table = { label: 'Audit records', rowKey: (r: AuditRow) => r.id, columns: COLUMNS, empty: 'No change recorded.' };
  return (
    <>
      <h1>Audit log</h1>
      <p className="muted">{RECORDS[service]}</p>
      <div className="field inline">
        <label htmlFor="audit-action">Action</label>
        <input
          id="audit-action"
          placeholder="e.g. webhook.updated"
          defaultValue={action ?? ''}
          onChange={(e) => setParams(actionFilter(e.target.value) ? { action: e.target.value } : {})}
        />
      </div>
      {service === 'docstore' ? (
        <List
          service="docstore"
          path="/api/v1/client/{client}/audit"
          init={{ params: { path: { client: credentials.docstoreClient! }, query: { action } } }}
          {...table}
        />
      ) : service === 'gateway' ? (
        <List service="gateway" path="/api/Audit" init={{ params: { query: { action } } }} sizeParam="limit" {...table} />
      ) : (
        <List service="ingestion" path="/DataInserterSales/api/audit" init={{ params: { query: { action } } }} {...table} />
      )}
    </>
  );
}
