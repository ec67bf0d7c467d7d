import type { ReactNode } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useNavigate, useRouteError } from 'react-router';
import { useSession } from './auth/session';
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
    ],
  },
  gateway: {
    title: 'Gateway',
    links: [
      ['/gateway/messages', 'Messages'],
      ['/gateway/send', 'Send a test message'],
      ['/gateway/templates', 'Templates'],
      ['/gateway/webhooks', 'Webhooks'],
      ['/gateway/profile', 'Business profile'],
    ],
  },
  ingestion: {
    title: 'Ingestion',
    links: [
      ['/ingestion/upload', 'Upload'],
      ['/ingestion/runs', 'Runs'],
    ],
  },
  push: { title: 'Push', links: [['/push/batches', 'Batches']] },
};

export const SERVICE_TITLES: Record<Service, string> = { docstore: 'Docstore', gateway: 'Gateway', ingestion: 'Ingestion', push: 'Push' };

/** The shell: skip link, header with sign-in state, the services' navigation, and the page. */
export function Layout({ failed = false }: { failed?: boolean }) {
  const { services, signOut } = useSession();
  const navigate = useNavigate();
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <NavLink to="/" className="brand">
          Services console
        </NavLink>
        {services.length > 0 ? (
          <button
            type="button"
            onClick={() => {
              signOut();
              void navigate('/signin');
            }}
          >
            Sign out
          </button>
        ) : (
          <NavLink to="/signin">Sign in</NavLink>
        )}
      </header>
      <div className="frame">
        {services.length > 0 && (
          <nav aria-label="Services">
            <NavLink to="/" end>
              Overview
            </NavLink>
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
    </>
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
