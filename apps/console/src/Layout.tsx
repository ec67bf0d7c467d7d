import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useNavigate, useRouteError } from 'react-router';
import { useApiQuery } from './api/hooks';
import { useSession } from './auth/session';
import { credentialIds } from './auth/whoami';
import type { Service } from './auth/credentials';

const NAV: Record<Service, { title: string; links: Array<[string, string]> }> = {
  docstore: {
    title: 'Docstore',
    links: [
      ['/docstore/collections', 'Collections'],
      ['/docstore/documents', 'Documents'],
      ['/docstore/schema', 'Schema'],
      ['/docstore/tokens', 'Tokens'],
      ['/docstore/webhooks', 'Webhooks'],
      ['/docstore/audit', 'Audit log'],
    ],
  },
  gateway: {
    title: 'Gateway',
    links: [
      ['/gateway/messages', 'Messages'],
      ['/gateway/inbox', 'Inbox'],
      ['/gateway/send', 'Send a test message'],
      ['/gateway/templates', 'Templates'],
      ['/gateway/webhooks', 'Webhooks'],
      ['/gateway/profile', 'Business profile'],
      ['/gateway/usage', 'Usage'],
      ['/gateway/audit', 'Audit log'],
    ],
  },
  ingestion: {
    title: 'Ingestion',
    links: [
      ['/ingestion/upload', 'Upload'],
      ['/ingestion/runs', 'Runs'],
      ['/ingestion/sales', 'Sales'],
      ['/ingestion/audit', 'Audit log'],
    ],
  },
  push: { title: 'Push', links: [['/push/batches', 'Batches']] },
};

export const SERVICE_TITLES: Record<Service, string> = { docstore: 'Docstore', gateway: 'Gateway', ingestion: 'Ingestion', push: 'Push' };

/** Keyboard shortcuts: `g` then a letter opens a page (of a signed-in service); `?` lists them. */
const SHORTCUTS: Array<{ keys: string; to: string; label: string; service?: Service }> = [
  { keys: 'g o', to: '/', label: 'Overview' },
  { keys: 'g c', to: '/docstore/collections', label: 'Docstore collections', service: 'docstore' },
  { keys: 'g d', to: '/docstore/documents', label: 'Docstore documents', service: 'docstore' },
  { keys: 'g t', to: '/docstore/tokens', label: 'Docstore tokens', service: 'docstore' },
  { keys: 'g w', to: '/docstore/webhooks', label: 'Docstore webhooks', service: 'docstore' },
  { keys: 'g m', to: '/gateway/messages', label: 'Gateway messages', service: 'gateway' },
  { keys: 'g s', to: '/gateway/send', label: 'Send a test message', service: 'gateway' },
  { keys: 'g u', to: '/ingestion/upload', label: 'Upload sales', service: 'ingestion' },
  { keys: 'g r', to: '/ingestion/runs', label: 'Ingestion runs', service: 'ingestion' },
  { keys: 'g b', to: '/push/batches', label: 'Push batches', service: 'push' },
];

/** Whether a key press belongs to a field being typed in (shortcuts stay out of its way). */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return Boolean(el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)));
}

/** The shell: skip link, top bar (the signed-in credential, the menu button on phones), navigation, the page. */
export function Layout({ failed = false }: { failed?: boolean }) {
  const { services, signOut } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  // The menu is open on the page it was opened on: opening a page from it closes it.
  const [menuOn, setMenuOn] = useState<string | null>(null);
  const menuOpen = menuOn === location.pathname;
  // The shortcuts dialog is in the page only while open (its name would otherwise match other labels).
  const [helpOpen, setHelpOpen] = useState(false);
  const help = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (helpOpen && help.current && !help.current.open) help.current.showModal();
  }, [helpOpen]);
  useEffect(() => {
    let pending = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || document.querySelector('dialog[open]:not(#shortcuts)')) return;
      if (e.key === '?') {
        e.preventDefault();
        setHelpOpen(true);
        return;
      }
      if (pending) {
        pending = false;
        const shortcut = SHORTCUTS.find((s) => s.keys === `g ${e.key}` && (!s.service || services.includes(s.service)));
        if (shortcut) {
          e.preventDefault();
          setHelpOpen(false);
          void navigate(shortcut.to);
        }
        return;
      }
      if (e.key === 'g') {
        pending = true;
        clearTimeout(timer);
        timer = setTimeout(() => (pending = false), 1500);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      clearTimeout(timer);
    };
  }, [navigate, services]);
  const signedIn = services.length > 0;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        {signedIn && (
          <button
            type="button"
            className="menu-button"
            aria-expanded={menuOpen}
            aria-controls="sidenav"
            onClick={() => setMenuOn(menuOpen ? null : location.pathname)}
          >
            Menu
          </button>
        )}
        <NavLink to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          <span className="brand-name">Services console</span>
        </NavLink>
        {signedIn ? (
          <>
            <WhoAmI />
            <button
              type="button"
              onClick={() => {
                signOut();
                void navigate('/signin');
              }}
            >
              Sign out
            </button>
          </>
        ) : (
          <NavLink to="/signin">Sign in</NavLink>
        )}
      </header>
      <div className="frame">
        {signedIn && (
          <nav aria-label="Services" id="sidenav" className={`sidenav${menuOpen ? ' open' : ''}`}>
            <ul>
              <li>
                <NavLink to="/" end>
                  Overview
                </NavLink>
              </li>
            </ul>
            {services.map((s) => (
              <section key={s} aria-labelledby={`nav-${s}`}>
                <h2 id={`nav-${s}`}>{NAV[s].title}</h2>
                <ul>
                  {NAV[s].links.map(([to, label]) => (
                    <li key={to}>
                      <NavLink to={to}>{label}</NavLink>
                    </li>
                  ))}
                </ul>
              </section>
            ))}
          </nav>
        )}
        <main id="main" tabIndex={-1}>
          {failed ? <RouteFailure /> : <Outlet />}
        </main>
      </div>
      {helpOpen && (
        <dialog id="shortcuts" ref={help} aria-labelledby="shortcuts-title" onClose={() => setHelpOpen(false)}>
          <h2 id="shortcuts-title">Keyboard shortcuts</h2>
          <dl className="shortcuts">
            <dt>
              <kbd>?</kbd>
            </dt>
            <dd>This list</dd>
            {SHORTCUTS.filter((s) => !s.service || services.includes(s.service)).map((s) => (
              <div key={s.keys} className="contents">
                <dt>
                  {s.keys.split(' ').map((k, i) => (
                    <span key={i}>
                      {i > 0 && ' then '}
                      <kbd>{k}</kbd>
                    </span>
                  ))}
                </dt>
                <dd>{s.label}</dd>
              </div>
            ))}
            <dt>
              <kbd>Esc</kbd>
            </dt>
            <dd>Close a dialog</dd>
          </dl>
          <div className="dialog-actions">
            <button type="button" onClick={() => help.current?.close()}>
              Close
            </button>
          </div>
        </dialog>
      )}
    </>
  );
}

/**
 * Which credential this tab is signed in with: the docstore token's name when the token may list tokens, else
 * the id part of the first credential (never a secret). Every credential's id is in the hover text.
 */
function WhoAmI() {
  const { credentials, services } = useSession();
  const ids = credentialIds(credentials);
  const tokens = useApiQuery(
    'docstore',
    '/api/v1/client/{client}/tokens',
    { params: { path: { client: credentials.docstoreClient ?? '' }, query: { per_page: 100 } } },
    { enabled: services.includes('docstore'), retry: false, staleTime: 60_000 },
  );
  const mine = tokens.data?.data.find((t) => t.id === ids.docstore);
  const first = services[0];
  const name = mine ? mine.name : `${ids[first] ?? ''}`;
  const all = services.map((s) => `${SERVICE_TITLES[s]}: ${s === 'docstore' && mine ? `${mine.name} (${ids[s]})` : ids[s]}`).join('; ');
  return (
    <p className="whoami" title={all} data-testid="whoami">
      <span>
        Signed in as <strong>{name}</strong>
        {services.length > 1 ? ` +${services.length - 1}` : ''}
      </span>
    </p>
  );
}

function RouteFailure() {
  const error = useRouteError();
  return (
    <div role="alert" className="error">
      <h1>Something went wrong</h1>
      <p>{error instanceof Error ? error.message : 'This page could not be shown.'}</p>
      <a href="/">Back to the overview</a>
    </div>
  );
}

/** A service's pages need its credential: without it, the sign-in page (coming back here afterwards). */
export function RequireService({ service, children }: { service: Service; children: ReactNode }) {
  const { services } = useSession();
  const location = useLocation();
  if (!services.includes(service)) return <Navigate to="/signin" replace state={{ from: location.pathname + location.search }} />;
  return <>{children}</>;
}
