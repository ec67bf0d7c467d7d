import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useApiQuery } from '../../api/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { when } from '../../components/Json';
import { CopyId } from '../../components/CopyButton';
import { StatusBadge } from '../../components/StatusBadge';
import { When } from '../../components/When';
import { List } from '../../components/List';
import { FilterSelect } from '../../components/FilterSelect';

const STATUSES = ['', 'accepted', 'sent', 'delivered', 'read', 'failed'];
const FINAL = new Set(['read', 'failed']);

/** The phone's messages, newest first, filtered by status and recipient; one message's status timeline. */
export default function Messages() {
  const [params, setParams] = useSearchParams();
  const [status, setStatus] = useState(params.get('status') ?? '');
  const [recipient, setRecipient] = useState(params.get('recipient') ?? '');
  const selected = params.get('message');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParams(Object.fromEntries(Object.entries({ status, recipient }).filter(([, v]) => v)));
  };
  return (
    <>
      <h1>Messages</h1>
      <form onSubmit={submit} className="inline" aria-label="Filter messages">
        <FilterSelect id="msg-status" label="Status" value={status} options={STATUSES} onChange={setStatus} />
        <div className="field">
          <label htmlFor="msg-recipient">Recipient</label>
          <input id="msg-recipient" value={recipient} onChange={(e) => setRecipient(e.target.value)} />
        </div>
        <button type="submit">Apply</button>
      </form>
      {selected && <Timeline id={selected} />}
      <List
        service="gateway"
        path="/api/Messages"
        sizeParam="limit"
        init={{ params: { query: { status: params.get('status') || undefined, recipient: params.get('recipient') || undefined } } }}
        label="Messages"
        columns={[
          { header: 'To', cell: (m) => m.to },
          { header: 'Type', cell: (m) => m.type },
          { header: 'Status', cell: (m) => <StatusBadge status={m.status} /> },
          { header: 'Sent', cell: (m) => <When iso={m.created_at} /> },
          {
            header: 'Details',
            cell: (m) => (
              <button
                type="button"
                onClick={() => setParams({ ...Object.fromEntries(params), message: m.id })}
                aria-label={`Timeline of the message to ${m.to} sent ${when(m.created_at)}`}
              >
                Timeline
              </button>
            ),
          },
        ]}
        rowKey={(m) => m.id}
      />
    </>
  );
}

/** A message's statuses as they arrive (polled until read or failed). */
export function Timeline({ id }: { id: string }) {
  const message = useApiQuery(
    'gateway',
    '/api/Messages/{id}',
    { params: { path: { id } } },
    {
      refetchInterval: (q) => (q.state.data && FINAL.has(q.state.data.status) ? false : 1000),
    },
  );
  return (
    <section aria-labelledby="timeline-title" className="card">
      <h2 id="timeline-title">Status timeline</h2>
      <ErrorNote error={message.error} />
      {message.data && (
        <>
          <p>
            To {message.data.to}, now <StatusBadge status={message.data.status} testId="message-status" />
          </p>
          <p>
            Message id <CopyId id={message.data.id} what="message id" />
          </p>
          <ol className="timeline" aria-live="polite">
            {message.data.statuses.map((s, i) => (
              <li key={i}>
                <StatusBadge status={s.status} /> <When iso={s.timestamp} />
                {s.errors?.length ? <code className="clip"> {JSON.stringify(s.errors)}</code> : null}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
