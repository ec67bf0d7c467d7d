import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useApiMutation } from '../../api/hooks';
import { useSession } from '../../auth/session';
import { DeliveryLog } from '../../components/DeliveryLog';
import { CopyButton } from '../../components/CopyButton';
import { ErrorNote } from '../../components/ErrorNote';
import { fieldError } from '../../components/FieldError';
import { List } from '../../components/List';
import { StatusBadge } from '../../components/StatusBadge';
import type { components } from '../../api/generated/docstore';

type DocumentEvent = components['schemas']['WebhookDto']['events'][number];
const EVENTS: DocumentEvent[] = ['document.created', 'document.updated', 'document.deleted', 'document.read'];

/** The client's webhooks: create (secret shown once), rotate the secret, the delivery log with attempts, redeliver. */
export default function Webhooks() {
  const { credentials } = useSession();
  const client = credentials.docstoreClient!;
  const [params, setParams] = useSearchParams();
  const selected = params.get('webhook');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<DocumentEvent[]>(['document.created', 'document.updated']);
  const create = useApiMutation('docstore', 'post', '/api/v1/client/{client}/webhooks', () => ({
    params: { path: { client } },
    body: { url, events, status: 'active' as const },
  }));
  const rotate = useApiMutation('docstore', 'post', '/api/v1/client/{client}/webhooks/{webhookId}/rotate-secret', (webhookId: string) => ({
    params: { path: { client, webhookId } },
  }));
  const shownSecret = rotate.data?.secret ?? create.data?.secret;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined, {
      onSuccess: (w) => {
        setUrl('');
        setEvents(['document.created', 'document.updated']);
        setParams({ webhook: w.id });
      },
    });
  };
  const urlError = fieldError(create.error, 'url', 'hook-url');
  const eventsError = fieldError(create.error, 'events', 'hook-events');
  return (
    <>
      <h1>Webhooks</h1>
      <form onSubmit={submit} aria-label="Register a webhook" className="card">
        <div className="field">
          <label htmlFor="hook-url">Target URL</label>
          <input id="hook-url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} {...urlError.input} />
          {urlError.message}
        </div>
        <fieldset>
          <legend>Events</legend>
          {eventsError.message}
          {EVENTS.map((ev) => (
            <label key={ev} className="check">
              <input
                type="checkbox"
                checked={events.includes(ev)}
                onChange={(e) => setEvents(e.target.checked ? [...events, ev] : events.filter((x) => x !== ev))}
              />{' '}
              {ev}
            </label>
          ))}
        </fieldset>
        <ErrorNote error={create.error} />
        <button type="submit" disabled={create.isPending}>
          Register
        </button>
      </form>
      {shownSecret && (
        <div role="status" className="card secret">
          <p>The signing secret, shown once:</p>
          <label htmlFor="hook-secret">Signing secret</label>
          <div className="copy-row">
            <input id="hook-secret" readOnly value={shownSecret} onFocus={(e) => e.target.select()} />
            <CopyButton value={shownSecret} label="Copy the webhook secret to the clipboard" />
          </div>
        </div>
      )}
      <ErrorNote error={rotate.error} />
      <List
        service="docstore"
        path="/api/v1/client/{client}/webhooks"
        init={{ params: { path: { client } } }}
        label="Webhooks"
        columns={[
          { header: 'URL', cell: (w) => <code className="clip">{w.url}</code> },
          { header: 'Events', cell: (w) => w.events.join(', ') },
          { header: 'Status', cell: (w) => <StatusBadge status={w.status} /> },
          {
            header: 'Actions',
            cell: (w) => (
              <>
                <button type="button" onClick={() => setParams({ webhook: w.id })} aria-label={`Deliveries of ${w.url}`}>
                  Deliveries
                </button>{' '}
                <button type="button" onClick={() => rotate.mutate(w.id)} aria-label={`Rotate secret of ${w.url}`}>
                  Rotate secret
                </button>
              </>
            ),
          },
        ]}
        rowKey={(w) => w.id}
        rowProps={(w) => ({ 'aria-current': selected === w.id ? 'true' : undefined })}
      />
      {selected && <DeliveryLog key={selected} webhook={{ service: 'docstore', client, webhookId: selected }} />}
    </>
  );
}
