import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useApiMutation, useApiQuery } from '../../api/hooks';
import { DeliveryLog } from '../../components/DeliveryLog';
import { CopyId } from '../../components/CopyButton';
import { ErrorNote } from '../../components/ErrorNote';
import { fieldError } from '../../components/FieldError';
import { Table } from '../../components/Table';

/** The gateway's webhook registrations, a form to add one, and the chosen one's delivery log. */
export default function Webhooks() {
  const [params, setParams] = useSearchParams();
  const selected = params.get('webhook');
  const list = useApiQuery('gateway', '/api/Webhooks', {});
  const [endpoint, setEndpoint] = useState('');
  const [types, setTypes] = useState('messages');
  const create = useApiMutation('gateway', 'post', '/api/Webhooks', () => ({
    body: {
      endpoint,
      types: types
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    },
  }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined, {
      onSuccess: () => {
        setEndpoint('');
        setTypes('messages');
      },
    });
  };
  const endpointError = fieldError(create.error, 'endpoint', 'gw-endpoint');
  const typesError = fieldError(create.error, 'types', 'gw-types');
  return (
    <>
      <h1>Gateway webhooks</h1>
      <form onSubmit={submit} aria-label="Register a webhook" className="card">
        <div className="field">
          <label htmlFor="gw-endpoint">Endpoint (https)</label>
          <input id="gw-endpoint" type="url" required value={endpoint} onChange={(e) => setEndpoint(e.target.value)} {...endpointError.input} />
          {endpointError.message}
        </div>
        <div className="field">
          <label htmlFor="gw-types">Event types (comma-separated)</label>
          <input id="gw-types" value={types} onChange={(e) => setTypes(e.target.value)} {...typesError.input} />
          {typesError.message}
        </div>
        <ErrorNote error={create.error} />
        <button type="submit" disabled={create.isPending}>
          Register
        </button>
      </form>
      <ErrorNote error={list.error} />
      {list.data && (
        <Table
          label="Webhooks"
          columns={[
            { header: 'Endpoint', cell: (w) => <code className="clip">{w.endpoint}</code> },
            { header: 'Id', cell: (w) => <CopyId id={w.id} what="webhook id" /> },
            { header: 'Types', cell: (w) => w.types.join(', ') },
            {
              header: 'Log',
              cell: (w) => (
                <button type="button" onClick={() => setParams({ webhook: w.id })} aria-label={`Deliveries of ${w.endpoint}`}>
                  Deliveries
                </button>
              ),
            },
          ]}
          rows={list.data.webhooks}
          rowKey={(w) => w.id}
        />
      )}
      {selected && <DeliveryLog key={selected} webhook={{ service: 'gateway', id: selected }} />}
    </>
  );
}
