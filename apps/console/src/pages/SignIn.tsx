import { useState, type FormEvent } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useSession } from '../auth/session';
import { CopyButton } from '../components/CopyButton';
import { cleanCredentials, servicesOf, type Credentials } from '../auth/credentials';

const FIELDS: Array<{ name: keyof Credentials; label: string; hint: string; secret: boolean }> = [
  { name: 'docstoreClient', label: 'Docstore client id', hint: 'The UUID of the client the token belongs to', secret: false },
  { name: 'docstoreToken', label: 'Docstore token', hint: '<id>|<secret> from npm run docstore:token', secret: true },
  { name: 'gatewayKey', label: 'Gateway API key', hint: 'gw_… from npm run gateway:apikey', secret: true },
  { name: 'ingestKey', label: 'Ingestion key', hint: 'sales_… from npm run ingest:apikey', secret: true },
  { name: 'pushToken', label: 'Push token', hint: 'push_… from npm run push:token', secret: true },
];

const COMMANDS = `CLIENT=$(node -e "console.log(crypto.randomUUID())")
npm run -s docstore:token -- --client $CLIENT --name admin --scopes '*'
npm run -s gateway:apikey -- --phone 15550100001 --phone-id 106540352242922 --name shop
npm run -s ingest:apikey -- --name loader --account shop
npm run -s push:token -- --name sender --account shop`;

/**
 * The signed-out page (at `/` and `/signin`): what the console is, how to get credentials (the CLI commands of
 * the root README), and the sign-in form.
 */
export default function SignIn() {
  return (
    <div className="landing">
      <section aria-labelledby="about-title">
        <h1 id="about-title">Services console</h1>
        <p className="lead">One place to see and operate the docstore, the messaging gateway, sales ingestion and push.</p>
        <ul className="features">
          <li>Documents with their history, side-by-side diffs and restore; schemas, tokens and webhooks.</li>
          <li>Messages with their status timelines; a sandbox send; templates and the business profile.</li>
          <li>Sales uploads with live progress, rejected rows and the error CSV.</li>
          <li>Push batches, now or scheduled, with per-device results and cancel.</li>
          <li>Every webhook's delivery log, each attempt, and redeliver.</li>
        </ul>
        <h2>Getting credentials</h2>
        <p>
          Credentials come from the command line of the machine that runs the services (<code>npm start</code>). Each command prints a new secret once:
        </p>
        <pre tabIndex={0} aria-label="Commands that make credentials">
          {COMMANDS}
        </pre>
        <CopyButton value={COMMANDS} label="Copy the commands to the clipboard" />
        <p className="hint">Any subset works: each credential opens its service's pages. They stay in this browser tab only, never in cookies.</p>
      </section>
      <SignInForm />
    </div>
  );
}

/** Any subset of the four credentials; each opens its service's pages. Kept in this tab's session only. */
function SignInForm() {
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
    <form onSubmit={submit} className="signin card" aria-labelledby="signin-title">
      <h2 id="signin-title">Sign in</h2>
      <p>Give the credentials of the services you want to see.</p>
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
