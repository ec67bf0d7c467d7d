import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useApiMutation } from '../../api/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { fieldError } from '../../components/FieldError';
import { StatusCounts } from '../../components/StatusBadge';
import { When } from '../../components/When';
import { formatCount } from '../../api/stats';
import { List } from '../../components/List';
import { pushItems, type Platform } from './types';

const EMPTY = { tokens: '', platform: 'Android' as Platform, title: '', message: '', date: '', time: '' };

/** The account's batches, newest first, with counts by status; a form to send (or schedule) a batch. */
export default function Batches() {
  const [form, setForm] = useState(EMPTY);
  const create = useApiMutation('push', 'post', '/api/pushm/bulk', () => ({ body: { pushs: pushItems(form) } }));
  // Without dry_run the answer is the batch (a dry run answers a preview, which the console does not ask for).
  const batch = create.data && 'batch_id' in create.data ? create.data : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined, { onSuccess: () => setForm(EMPTY) });
  };
  // The API names each item's field (`pushs.0.nm_mensagem`): shown beside the input that fills it.
  const err = (field: string, id: string) => fieldError(create.error, new RegExp(`^pushs(\\.\\d+)?\\.${field}$`), id);
  const tokensError = err('nm_push', 'push-tokens');
  const titleError = err('nm_titulo', 'push-title');
  const messageError = err('nm_mensagem', 'push-message');
  const dateError = err('dt_envio', 'push-date');
  const timeError = err('hr_envio', 'push-time');
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  return (
    <>
      <h1>Push batches</h1>
      <details className="card">
        <summary>Send a batch</summary>
        <form onSubmit={submit} aria-label="Send a batch">
          <div className="field">
            <label htmlFor="push-tokens">Device tokens (one per line)</label>
            <textarea id="push-tokens" required rows={3} value={form.tokens} onChange={set('tokens')} {...tokensError.input} />
            {tokensError.message}
          </div>
          <div className="field">
            <label htmlFor="push-platform">Platform</label>
            <select id="push-platform" value={form.platform} onChange={set('platform')}>
              <option>Android</option>
              <option>iOS</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="push-title">Title (optional)</label>
            <input id="push-title" value={form.title} onChange={set('title')} {...titleError.input} />
            {titleError.message}
          </div>
          <div className="field">
            <label htmlFor="push-message">Message</label>
            <input id="push-message" required value={form.message} onChange={set('message')} {...messageError.input} />
            {messageError.message}
          </div>
          <fieldset className="inline">
            <legend>Schedule (UTC, optional: empty sends now)</legend>
            <div className="field">
              <label htmlFor="push-date">Date</label>
              <input id="push-date" type="date" value={form.date} onChange={set('date')} {...dateError.input} />
              {dateError.message}
            </div>
            <div className="field">
              <label htmlFor="push-time">Time</label>
              <input id="push-time" type="time" value={form.time} onChange={set('time')} {...timeError.input} />
              {timeError.message}
            </div>
          </fieldset>
          <ErrorNote error={create.error} />
          <button type="submit" disabled={create.isPending}>
            Send
          </button>
        </form>
        {batch && (
          <p role="status">
            Batch <Link to={`/push/batch?id=${encodeURIComponent(batch.batch_id)}`}>{batch.batch_id}</Link>: {batch.accepted} accepted, {batch.rejected}{' '}
            rejected.
          </p>
        )}
      </details>
      <List
        service="push"
        path="/api/pushm/bulk"
        init={{}}
        label="Batches"
        columns={[
          {
            header: 'Created',
            cell: (b) => (
              <Link to={`/push/batch?id=${encodeURIComponent(b.batch_id)}`}>
                <When iso={b.created_at} />
              </Link>
            ),
          },
          { header: 'Accepted', cell: (b) => b.accepted },
          { header: 'Rejected', cell: (b) => b.rejected },
          { header: 'Counts', cell: (b) => <StatusCounts counts={b.counts} /> },
          { header: 'Opened', cell: (b) => (b.open_rate === null ? formatCount(b.opened) : `${formatCount(b.opened)} (${(b.open_rate * 100).toFixed(1)} %)`) },
          { header: 'Cancelled', cell: (b) => <When iso={b.cancelled_at} /> },
        ]}
        rowKey={(b) => b.batch_id}
      />
    </>
  );
}
