import { useState, type FormEvent } from 'react';
import { useApiMutation } from '../../api/hooks';
import { useSession } from '../../auth/session';
import { credentialIds } from '../../auth/whoami';
import { useConfirm } from '../../components/Confirm';
import { CopyButton } from '../../components/CopyButton';
import { ErrorNote } from '../../components/ErrorNote';
import { fieldError } from '../../components/FieldError';
import { List } from '../../components/List';
import { StatusBadge } from '../../components/StatusBadge';
import { When } from '../../components/When';

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
  // Disabling is the reversible way to stop a token (PUT status): it offers Undo; revoking cannot be undone.
  const setStatus = useApiMutation(
    'docstore',
    'put',
    '/api/v1/client/{client}/tokens/{tokenId}',
    (v: { id: string; name: string; status: 'active' | 'inactive' }) => ({ params: { path: { client, tokenId: v.id } }, body: { status: v.status } }),
  );
  const [confirm, dialog] = useConfirm();
  const mine = credentialIds(credentials).docstore;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined, {
      onSuccess: () => {
        setName('');
        setScopes('document:read');
        setExpires('');
      },
    });
  };
  const nameError = fieldError(create.error, 'name', 'token-name');
  const scopesError = fieldError(create.error, 'scopes', 'token-scopes');
  const expiresError = fieldError(create.error, 'expires_at', 'token-expires');
  return (
    <>
      <h1>Tokens</h1>
      <form onSubmit={submit} aria-label="Create a token" className="card">
        <div className="field">
          <label htmlFor="token-name">Name</label>
          <input id="token-name" required value={name} onChange={(e) => setName(e.target.value)} {...nameError.input} />
          {nameError.message}
        </div>
        <div className="field">
          <label htmlFor="token-scopes">Scopes (comma-separated, or *)</label>
          <input id="token-scopes" value={scopes} onChange={(e) => setScopes(e.target.value)} {...scopesError.input} />
          {scopesError.message}
        </div>
        <div className="field">
          <label htmlFor="token-expires">Expires (optional)</label>
          <input id="token-expires" type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} {...expiresError.input} />
          {expiresError.message}
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
          <div className="copy-row">
            <input id="new-token" readOnly value={create.data.token} onFocus={(e) => e.target.select()} />
            <CopyButton value={create.data.token} label="Copy the new token to the clipboard" />
          </div>
        </div>
      )}
      <ErrorNote error={revoke.error} />
      {revoke.isSuccess && <p role="status">Token revoked.</p>}
      <ErrorNote error={setStatus.error} />
      {setStatus.isSuccess && setStatus.variables && (
        <p role="status">
          {setStatus.variables.name} {setStatus.variables.status === 'inactive' ? 'disabled' : 'enabled'}.{' '}
          <button
            type="button"
            className="small"
            onClick={() => {
              const v = setStatus.variables!;
              setStatus.mutate({ ...v, status: v.status === 'inactive' ? 'active' : 'inactive' });
            }}
          >
            Undo
          </button>
        </p>
      )}
      {dialog}
      <List
        service="docstore"
        path="/api/v1/client/{client}/tokens"
        init={{ params: { path: { client } } }}
        label="Tokens"
        columns={[
          {
            header: 'Name',
            cell: (t) => (
              <>
                {t.name}
                {t.id === mine && (
                  <>
                    {' '}
                    <StatusBadge status="signed in" testId="current-token" />
                  </>
                )}
              </>
            ),
          },
          { header: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
          { header: 'Scopes', cell: (t) => <code className="clip">{JSON.stringify(t.scopes)}</code> },
          { header: 'Last used', cell: (t) => <When iso={t.last_used_at} /> },
          { header: 'Expires', cell: (t) => <When iso={t.expires_at} /> },
          {
            header: 'Actions',
            cell: (t) => (
              <>
                <button
                  type="button"
                  disabled={setStatus.isPending}
                  onClick={() => {
                    const change = () => setStatus.mutate({ id: t.id, name: t.name, status: t.status === 'active' ? 'inactive' : 'active' });
                    // Disabling the console's own token cuts its docstore access, Undo included: that one asks first.
                    if (t.id === mine && t.status === 'active')
                      confirm({
                        title: `Disable ${t.name}?`,
                        body: <p>This console is signed in with it: its docstore pages, and Undo, stop working until another token enables it again.</p>,
                        action: 'Disable',
                        run: change,
                      });
                    else change();
                  }}
                  aria-label={`${t.status === 'active' ? 'Disable' : 'Enable'} ${t.name}`}
                >
                  {t.status === 'active' ? 'Disable' : 'Enable'}
                </button>{' '}
                <button
                  type="button"
                  onClick={() =>
                    confirm({
                      title: `Revoke ${t.name}?`,
                      body: (
                        <p>
                          Requests with this token are refused from now on; this cannot be undone.
                          {t.id === mine ? ' This console is signed in with it: its docstore pages stop working until you sign in with another token.' : ''}
                        </p>
                      ),
                      action: 'Revoke',
                      run: () => revoke.mutate(t.id),
                    })
                  }
                  aria-label={`Revoke ${t.name}`}
                >
                  Revoke
                </button>
              </>
            ),
          },
        ]}
        rowKey={(t) => t.id}
      />
    </>
  );
}
