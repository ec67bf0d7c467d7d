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
        columns={['Event', 'Status', 'Attempts', 'Last answer', 'Created', 'Actions']}
        empty="No deliveries yet."
        row={(d) => [
          <tr key={d.id}>
            <td>{d.event}</td>
            <td>{d.status}</td>
            <td>{d.attempts}</td>
            <td>
              {d.response_status ?? '—'}
              {d.duration_ms !== null ? ` in ${d.duration_ms} ms` : ''}
              {d.error ? ` (${d.error})` : ''}
            </td>
            <td>{when(d.created_at)}</td>
            <td>
              <button type="button" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? null : d.id)}>
                Attempts
              </button>{' '}
              <button type="button" onClick={() => redeliver.mutate(d.id)} disabled={redeliver.isPending}>
                Redeliver
              </button>
            </td>
          </tr>,
          open === d.id && (
            <tr key={`${d.id}-attempts`}>
              <td colSpan={6}>
                <List<Attempt>
                  service={service}
                  path={`${webhookPath}/deliveries/${encodeURIComponent(d.id)}/attempts`}
                  sizeParam={sizeParam}
                  label={`Attempts of delivery ${d.id}`}
                  columns={['#', 'Trigger', 'Outcome', 'Status', 'Duration', 'Answer', 'When']}
                  row={(a) => (
                    <tr key={a.attempt}>
                      <td>{a.attempt}</td>
                      <td>{a.trigger}</td>
                      <td>{a.outcome}</td>
                      <td>{a.response_status ?? '—'}</td>
                      <td>{a.duration_ms !== null ? `${a.duration_ms} ms` : '—'}</td>
                      <td>
                        <code className="clip">{a.response_body ?? a.error ?? ''}</code>
                      </td>
                      <td>{when(a.attempted_at)}</td>
                    </tr>
                  )}
                />
              </td>
            </tr>
          ),
        ]}
      />
    </section>
  );
}
