import { useState } from 'react';
import { useApiMutation } from '../api/hooks';
import type { Service } from '../auth/credentials';
import { ErrorNote } from './ErrorNote';
import { when } from './Json';
import { List } from './List';

interface Delivery {
  id: string;
  event: string;
  status: string;
  attempts: number;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: string;
}

interface Attempt {
  attempt: number;
  trigger: string;
  outcome: string;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  response_body: string | null;
  attempted_at: string;
}

/**
 * A webhook's delivery log (both services keep it the same way, in libs/webhooks): each delivery, its attempts
 * (status, duration, the answer's first 1 KB) and redeliver.
 */
export function DeliveryLog({ service, webhookPath, sizeParam }: { service: Service; webhookPath: string; sizeParam: 'per_page' | 'limit' }) {
  const [open, setOpen] = useState<string | null>(null);
  const redeliver = useApiMutation<unknown, string>(service, (id) => ({ method: 'POST', path: `${webhookPath}/deliveries/${encodeURIComponent(id)}/redeliver` }));
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Delivery log</h2>
      <ErrorNote error={redeliver.error} />
      {redeliver.isSuccess && <p role="status">Redelivery queued.</p>}
      <List<Delivery>
        service={service}
        path={`${webhookPath}/deliveries`}
        sizeParam={sizeParam}
        label="Deliveries"
        columns={[
          { header: 'Event', cell: (d) => d.event },
          { header: 'Status', cell: (d) => d.status },
          { header: 'Attempts', cell: (d) => d.attempts },
          {
            header: 'Last answer',
            cell: (d) => (
              <>
                {d.response_status ?? '—'}
                {d.duration_ms !== null ? ` in ${d.duration_ms} ms` : ''}
                {d.error ? ` (${d.error})` : ''}
              </>
            ),
          },
          { header: 'Created', cell: (d) => when(d.created_at) },
          {
            header: 'Actions',
            cell: (d) => (
              <>
                <button type="button" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? null : d.id)}>
                  Attempts
                </button>{' '}
                <button type="button" onClick={() => redeliver.mutate(d.id)} disabled={redeliver.isPending}>
                  Redeliver
                </button>
              </>
            ),
          },
        ]}
        rowKey={(d) => d.id}
        empty="No deliveries yet."
        details={(d) =>
          open === d.id && (
            <List<Attempt>
              service={service}
              path={`${webhookPath}/deliveries/${encodeURIComponent(d.id)}/attempts`}
              sizeParam={sizeParam}
              label={`Attempts of delivery ${d.id}`}
              columns={[
                { header: '#', cell: (a) => a.attempt },
                { header: 'Trigger', cell: (a) => a.trigger },
                { header: 'Outcome', cell: (a) => a.outcome },
                { header: 'Status', cell: (a) => a.response_status ?? '—' },
                { header: 'Duration', cell: (a) => (a.duration_ms !== null ? `${a.duration_ms} ms` : '—') },
                { header: 'Answer', cell: (a) => <code className="clip">{a.response_body ?? a.error ?? ''}</code> },
                { header: 'When', cell: (a) => when(a.attempted_at) },
              ]}
              rowKey={(a) => a.attempt}
            />
          )
        }
      />
    </section>
  );
}
