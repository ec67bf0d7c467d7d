import { lazy, Suspense, type ComponentType } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { ErrorBoundary } from './components/ErrorBoundary';
import { Layout, RequireService } from './Layout';
import type { Service } from './auth/credentials';

/** Every page is its own chunk: the first load carries the shell and the sign-in form only. */
function page(load: () => Promise<{ default: ComponentType }>, service?: Service) {
  const Page = lazy(load);
  const element = (
    <ErrorBoundary>
      <Suspense fallback={<p aria-live="polite">Loading…</p>}>
        <Page />
      </Suspense>
    </ErrorBoundary>
  );
  return service ? <RequireService service={service}>{element}</RequireService> : element;
}

export const router = createBrowserRouter([
  {
    path: '/',
    element: <Layout />,
    errorElement: <Layout failed />,
    children: [
      { index: true, element: page(() => import('./pages/Overview')) },
      { path: 'signin', element: page(() => import('./pages/SignIn')) },
      { path: 'docstore', element: <Navigate to="/docstore/collections" replace /> },
      { path: 'docstore/collections', element: page(() => import('./pages/docstore/Collections'), 'docstore') },
      { path: 'docstore/documents', element: page(() => import('./pages/docstore/Documents'), 'docstore') },
      { path: 'docstore/document', element: page(() => import('./pages/docstore/Document'), 'docstore') },
      { path: 'docstore/schema', element: page(() => import('./pages/docstore/Schema'), 'docstore') },
      { path: 'docstore/tokens', element: page(() => import('./pages/docstore/Tokens'), 'docstore') },
      { path: 'docstore/webhooks', element: page(() => import('./pages/docstore/Webhooks'), 'docstore') },
      { path: 'docstore/audit', element: page(() => import('./pages/docstore/Audit'), 'docstore') },
      { path: 'gateway', element: <Navigate to="/gateway/messages" replace /> },
      { path: 'gateway/messages', element: page(() => import('./pages/gateway/Messages'), 'gateway') },
      { path: 'gateway/inbox', element: page(() => import('./pages/gateway/Inbox'), 'gateway') },
      { path: 'gateway/send', element: page(() => import('./pages/gateway/Send'), 'gateway') },
      { path: 'gateway/templates', element: page(() => import('./pages/gateway/Templates'), 'gateway') },
      { path: 'gateway/webhooks', element: page(() => import('./pages/gateway/Webhooks'), 'gateway') },
      { path: 'gateway/profile', element: page(() => import('./pages/gateway/Profile'), 'gateway') },
      { path: 'gateway/usage', element: page(() => import('./pages/gateway/Usage'), 'gateway') },
      { path: 'gateway/audit', element: page(() => import('./pages/gateway/Audit'), 'gateway') },
      { path: 'ingestion', element: <Navigate to="/ingestion/upload" replace /> },
      { path: 'ingestion/upload', element: page(() => import('./pages/ingestion/Upload'), 'ingestion') },
      { path: 'ingestion/runs', element: page(() => import('./pages/ingestion/Runs'), 'ingestion') },
      { path: 'ingestion/run', element: page(() => import('./pages/ingestion/Run'), 'ingestion') },
      { path: 'ingestion/sales', element: page(() => import('./pages/ingestion/Sales'), 'ingestion') },
      { path: 'ingestion/audit', element: page(() => import('./pages/ingestion/Audit'), 'ingestion') },
      { path: 'push', element: <Navigate to="/push/batches" replace /> },
      { path: 'push/batches', element: page(() => import('./pages/push/Batches'), 'push') },
      { path: 'push/batch', element: page(() => import('./pages/push/Batch'), 'push') },
      { path: '*', element: page(() => import('./pages/NotFound')) },
    ],
  },
]);
