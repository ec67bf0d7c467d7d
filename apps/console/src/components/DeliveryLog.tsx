import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../api/client';
import type { Row } from '../api/openapi';
import { useSession } from '../auth/session';
import { ErrorNote } from './ErrorNote';
import { StatusBadge } from './StatusBadge';
import { When } from './When';
import { List } from './List';
import type { Column } from './Table';

/** Whose delivery log: a docstore client's webhook or a gateway registration. */
export type WebhookTarget = { service: 'docstore'; client: string; webhookId: string } | { service: 'gateway'; id: string };

const DOCSTORE = '/api/v1/client/{client}/webhooks/{webhookId}/deliveries';
const GATEWAY = '/api/Webhooks/{id}/deliveries';

type Delivery = Row<'docstore', typeof DOCSTORE> | Row<'gateway', typeof GATEWAY>;
type Attempt = Row<'docstore', `${typeof DOCSTORE}/{deliveryId}/attempts`> | Row<'gateway', `${typeof GATEWAY}/{deliveryId}/attempts`>;

const ATTEMPT_COLUMNS: Column<Attempt>[] = [
  { header: '#', cell: (a) => a.attempt },
  { header: 'Trigger', cell: (a) => a.trigger },
  { header: 'Outcome', cell: (a) => <StatusBadge status={a.outcome} /> },
  { header: 'Status', cell: (a) => a.response_status ?? '—' },
  { header: 'Duration', cell: (a) => (a.duration_ms !== null ? `${a.duration_ms} ms` : '—') },
  { header: 'Answer', cell: (a) => <code className="clip">{a.response_body ?? a.error ?? ''}</code> },
  { header: 'When', cell: (a) => <When iso={a.attempted_at} /> },
];

/** A delivery's attempts, from the service that made them. */
function Attempts({ webhook, deliveryId }: { webhook: WebhookTarget; deliveryId: string }) {
  const table = { label: `Attempts of delivery ${deliveryId}`, columns: ATTEMPT_COLUMNS, rowKey: (a: Attempt) => a.attempt };
  return webhook.service === 'docstore' ? (
    <List
      {...table}
      service="docstore"
      path={`${DOCSTORE}/{deliveryId}/attempts`}
      init={{ params: { path: { client: webhook.client, webhookId: webhook.webhookId, deliveryId } } }}
    />
  ) : (
    <List
      {...table}
      service="gateway"
      path={`${GATEWAY}/{deliveryId}/attempts`}
      sizeParam="limit"
      init={{ params: { path: { id: webhook.id, deliveryId } } }}
    />
  );
}

/**
 * A webhook's delivery log (both services keep it the same way, in libs/webhooks): each delivery, its attempts
 * (status, duration, the answer's first 1 KB) and redeliver.
 */
export function DeliveryLog({ webhook }: { webhook: WebhookTarget }) {
  const { credentials } = useSession();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<string | null>(null);
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) =>
      webhook.service === 'docstore'
        ? call('docstore', credentials, 'post', `${DOCSTORE}/{deliveryId}/redeliver`, {
            params: { path: { client: webhook.client, webhookId: webhook.webhookId, deliveryId } },
          })
        : call('gateway', credentials, 'post', `${GATEWAY}/{deliveryId}/redeliver`, { params: { path: { id: webhook.id, deliveryId } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [webhook.service] }),
  });
  const columns: Column<Delivery>[] = [
    { header: 'Event', cell: (d) => d.event },
    { header: 'Status', cell: (d) => <StatusBadge status={d.status} /> },
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
    { header: 'Created', cell: (d) => <When iso={d.created_at} /> },
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
  ];
  const table = {
    label: 'Deliveries',
    columns,
    rowKey: (d: Delivery) => d.id,
    empty: 'No deliveries yet.',
    details: (d: Delivery) => open === d.id && <Attempts webhook={webhook} deliveryId={d.id} />,
  };
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Delivery log</h2>
      <ErrorNote error={redeliver.error} />
      {redeliver.isSuccess && <p role="status">Redelivery queued.</p>}
      {webhook.service === 'docstore' ? (
        <List {...table} service="docstore" path={DOCSTORE} init={{ params: { path: { client: webhook.client, webhookId: webhook.webhookId } } }} />
      ) : (
        <List {...table} service="gateway" path={GATEWAY} sizeParam="limit" init={{ params: { path: { id: webhook.id } } }} />
      )}
    </section>
  );
}
