import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useApiMutation } from '../../api/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { when } from '../../components/Json';
import { List } from '../../components/List';
import { BULK, countsText, pushItems, type BatchSummary } from './types';

/** The account's batches, newest first, with counts by status; a form to send (or schedule) a batch. */
export default function Batches() {
  const [form, setForm] = useState({ tokens: '', platform: 'Android', title: '', message: '', date: '', time: '' });
  const create = useApiMutation<{ batch_id: string; accepted: number; rejected: number }, void>('push', () => ({
    method: 'POST',
    path: BULK,
    body: { pushs: pushItems(form) },
  }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  return (
    <>
      <h1>Push batches</h1>
      <details className="card">
        <summary>Send a batch</summary>
        <form onSubmit={submit} aria-label="Send a batch">
          <div className="field">
            <label htmlFor="push-tokens">Device tokens (one per line)</label>
            <textarea id="push-tokens" required rows={3} value={form.tokens} onChange={set('tokens')} />
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
            <input id="push-title" value={form.title} onChange={set('title')} />
          </div>
          <div className="field">
            <label htmlFor="push-message">Message</label>
            <input id="push-message" required value={form.message} onChange={set('message')} />
          </div>
          <fieldset className="inline">
            <legend>Schedule (UTC, optional: empty sends now)</legend>
            <div className="field">
              <label htmlFor="push-date">Date</label>
              <input id="push-date" type="date" value={form.date} onChange={set('date')} />
            </div>
            <div className="field">
              <label htmlFor="push-time">Time</label>
              <input id="push-time" type="time" value={form.time} onChange={set('time')} />
            </div>
          </fieldset>
          <ErrorNote error={create.error} />
          <button type="submit" disabled={create.isPending}>
            Send
          </button>
        </form>
        {create.data && (
          <p role="status">
            Batch <Link to={`/push/batch?id=${encodeURIComponent(create.data.batch_id)}`}>{create.data.batch_id}</Link>: {create.data.accepted} accepted,{' '}
            {create.data.rejected} rejected.
          </p>
        )}
      </details>
      <List<BatchSummary>
        service="push"
        path={BULK}
        label="Batches"
        columns={[
          { header: 'Created', cell: (b) => <Link to={`/push/batch?id=${encodeURIComponent(b.batch_id)}`}>{when(b.created_at)}</Link> },
          { header: 'Accepted', cell: (b) => b.accepted },
          { header: 'Rejected', cell: (b) => b.rejected },
          { header: 'Counts', cell: (b) => countsText(b.counts) },
          { header: 'Cancelled', cell: (b) => when(b.cancelled_at) },
        ]}
        rowKey={(b) => b.batch_id}
      />
    </>
  );
}
