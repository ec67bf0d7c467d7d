import { useState, type FormEvent } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useSession } from '../auth/session';
import { cleanCredentials, servicesOf, type Credentials } from '../auth/credentials';

const FIELDS: Array<{ name: keyof Credentials; label: string; hint: string; secret: boolean }> = [
  { name: 'docstoreClient', label: 'Docstore client id', hint: 'The UUID of the client the token belongs to', secret: false },
  { name: 'docstoreToken', label: 'Docstore token', hint: '<id>|<secret> from npm run docstore:token', secret: true },
  { name: 'gatewayKey', label: 'Gateway API key', hint: 'gw_… from npm run gateway:apikey', secret: true },
  { name: 'ingestKey', label: 'Ingestion key', hint: 'sales_… from npm run ingest:apikey', secret: true },
  { name: 'pushToken', label: 'Push token', hint: 'push_… from npm run push:token', secret: true },
];

/** Any subset of the four credentials; each opens its service's pages. Kept in this tab's session only. */
export default function SignIn() {
  const { credentials, signIn } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [values, setValues] = useState<Credentials>(credentials);
  const [problem, setProblem] = useState('');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const clean = cleanCredentials(values);
    if (Boolean(clean.docstoreToken) !== Boolean(clean.docstoreClient)) return setProblem('The docstore needs both its token and its client id.');
    if (servicesOf(clean).length === 0) return setProblem('Give at least one credential.');
    signIn(clean);
    void navigate((location.state as { from?: string } | null)?.from ?? '/');
  };

  return (
    <form onSubmit={submit} className="signin" aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in</h1>
      <p>Give the credentials of the services you want to see; any subset works. They stay in this browser tab only.</p>
      {FIELDS.map((f) => (
        <div className="field" key={f.name}>
          <label htmlFor={f.name}>{f.label}</label>
          <input
            id={f.name}
            name={f.name}
            type={f.secret ? 'password' : 'text'}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={`${f.name}-hint`}
            value={values[f.name] ?? ''}
            onChange={(e) => setValues({ ...values, [f.name]: e.target.value })}
          />
          <small id={`${f.name}-hint`}>{f.hint}</small>
        </div>
      ))}
      {problem && (
        <p role="alert" className="error">
          {problem}
        </p>
      )}
      <button type="submit">Sign in</button>
    </form>
  );
}
