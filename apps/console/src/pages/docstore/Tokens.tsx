import { useState, type FormEvent } from 'react';
import { useApiMutation } from '../../api/hooks';
import { useSession } from '../../auth/session';
import { ErrorNote } from '../../components/ErrorNote';
import { when } from '../../components/Json';
import { List } from '../../components/List';

/** The client's tokens: create (the plain token is shown once) and revoke. */
export default function Tokens() {
  const { credentials } = useSession();
  const client = credentials.docstoreClient!;
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState('document:read');
  const [expires, setExpires] = useState('');
  const create = useApiMutation('docstore', 'post', '/api/v1/client/{client}/tokens', () => ({
    params: { path: { client } },
    body: {
      name,
      scopes: scopes
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
    },
  }));
  const revoke = useApiMutation('docstore', 'delete', '/api/v1/client/{client}/tokens/{tokenId}', (tokenId: string) => ({
    params: { path: { client, tokenId } },
  }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <>
      <h1>Tokens</h1>
      <form onSubmit={submit} aria-label="Create a token" className="card">
        <div className="field">
          <label htmlFor="token-name">Name</label>
          <input id="token-name" required value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="token-scopes">Scopes (comma-separated, or *)</label>
          <input id="token-scopes" value={scopes} onChange={(e) => setScopes(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="token-expires">Expires (optional)</label>
          <input id="token-expires" type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
        </div>
        <ErrorNote error={create.error} />
        <button type="submit" disabled={create.isPending}>
          Create token
        </button>
      </form>
      {create.data && (
        <div role="status" className="card secret">
          <p>
            Token <strong>{create.data.token_details.name}</strong> created. Copy it now: it is not shown again.
          </p>
          <label htmlFor="new-token">New token</label>
          <input id="new-token" readOnly value={create.data.token} onFocus={(e) => e.target.select()} />
        </div>
      )}
      <ErrorNote error={revoke.error} />
      <List
        service="docstore"
        path="/api/v1/client/{client}/tokens"
        init={{ params: { path: { client } } }}
        label="Tokens"
        columns={[
          { header: 'Name', cell: (t) => t.name },
          { header: 'Status', cell: (t) => t.status },
          { header: 'Scopes', cell: (t) => <code className="clip">{JSON.stringify(t.scopes)}</code> },
          { header: 'Last used', cell: (t) => when(t.last_used_at) },
          { header: 'Expires', cell: (t) => when(t.expires_at) },
          {
            header: 'Action',
            cell: (t) => (
              <button type="button" onClick={() => revoke.mutate(t.id)} aria-label={`Revoke ${t.name}`}>
                Revoke
              </button>
            ),
          },
        ]}
        rowKey={(t) => t.id}
      />
    </>
  );
}
