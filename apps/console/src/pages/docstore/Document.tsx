import { useInfiniteQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { call } from '../../api/client';
import { useApiMutation, useApiQuery } from '../../api/hooks';
import { nextPage } from '../../api/paging';
import { LIVE_LABEL, useLiveChanges } from '../../api/live-changes';
import { useSession } from '../../auth/session';
import { ErrorNote } from '../../components/ErrorNote';
import { Json } from '../../components/Json';
import { StatusBadge } from '../../components/StatusBadge';
import { When } from '../../components/When';
import { Table } from '../../components/Table';
import { collectionFrom, collectionParams, documentsPage, type Collection, type DocumentView, type HistoryEntry } from './paths';

const Diff = lazy(() => import('../../components/Diff'));

const DOCUMENT = '/api/v1/client/{client}/{environment}/context/{context}/type/{type}/{key}';
type DocumentParams = ReturnType<typeof collectionParams> & { key: string };

/** One document: its JSON, an editor (PUT), its history with a side-by-side diff of any two versions, and restore. */
export default function DocumentPage() {
  const [params] = useSearchParams();
  const collection = collectionFrom(params);
  const key = params.get('key') ?? '';
  if (!collection || !key) return <p role="alert">This page needs an environment, context, type and key.</p>;
  return <DocumentBody collection={collection} docKey={key} />;
}

function DocumentBody({ collection, docKey }: { collection: Collection; docKey: string }) {
  const { credentials } = useSession();
  const path = { ...collectionParams(credentials.docstoreClient!, collection), key: docKey };
  const doc = useApiQuery('docstore', DOCUMENT, { params: { path, query: { deleted: true } } });
  const live = useLiveChanges(`${collection.environment}/${collection.context}/${collection.type}`, docKey);
  return (
    <>
      <p>
        <Link to={documentsPage(collection)}>
          {collection.environment} / {collection.context} / {collection.type}
        </Link>
      </p>
      <h1>
        Document <code>{docKey}</code>
      </h1>
      <p role="status">{LIVE_LABEL[live]}</p>
      <ErrorNote error={doc.error} />
      {doc.data && (
        <>
          <p>
            Version <strong data-testid="version">{doc.data.version}</strong>, updated <When iso={doc.data.updated_at} />
            {doc.data.deleted_at ? (
              <>
                , <StatusBadge status="deleted" /> <When iso={doc.data.deleted_at} />
              </>
            ) : null}
          </p>
          <Json value={doc.data.data} label="Document data" />
          <Editor key={doc.data.version} doc={doc.data} path={path} collection={collection} />
        </>
      )}
      <History path={path} />
    </>
  );
}

function Editor({ doc, path, collection }: { doc: DocumentView; path: DocumentParams; collection: Collection }) {
  const [text, setText] = useState(JSON.stringify(doc.data, null, 2));
  const [parseError, setParseError] = useState('');
  const save = useApiMutation('docstore', 'put', DOCUMENT, (data: Record<string, unknown>) => ({
    params: { path },
    headers: { 'If-Match': `"${doc.version}"` },
    body: { ...collection, key: doc.key, data },
  }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParseError('');
    try {
      save.mutate(JSON.parse(text) as Record<string, unknown>);
    } catch (err) {
      setParseError(`The data is not JSON: ${(err as Error).message}`);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Edit the document" className="card">
      <div className="field">
        <label htmlFor="edit-data">Data (saved as a new version)</label>
        <textarea id="edit-data" rows={8} value={text} onChange={(e) => setText(e.target.value)} />
      </div>
      {parseError && (
        <p role="alert" className="error">
          {parseError}
        </p>
      )}
      <ErrorNote error={save.error} />
      <button type="submit" disabled={save.isPending}>
        Save
      </button>
    </form>
  );
}

function History({ path }: { path: DocumentParams }) {
  const { credentials } = useSession();
  const history = useInfiniteQuery({
    queryKey: ['docstore', `${DOCUMENT}/history`, path, 'list'],
    initialPageParam: {} as { page?: number },
    queryFn: ({ pageParam }) => call('docstore', credentials, 'get', `${DOCUMENT}/history`, { params: { path, query: { per_page: 100, ...pageParam } } }),
    getNextPageParam: (last): { page?: number } | undefined => nextPage(last) ?? undefined,
  });
  const restore = useApiMutation('docstore', 'post', `${DOCUMENT}/history/{history_id}/restore`, (id: string) => ({
    params: { path: { ...path, history_id: id } },
  }));
  const entries = history.data?.pages.flatMap((p) => p.data) ?? [];
  const [left, setLeft] = useState<string>('');
  const [right, setRight] = useState<string>('');
  const a = entries.find((e) => e.id === left) ?? entries[1] ?? entries[0];
  const b = entries.find((e) => e.id === right) ?? entries[0];

  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <ErrorNote error={history.error ?? restore.error} />
      {restore.isSuccess && <p role="status">Restored as version {restore.data.version}.</p>}
      {entries.length > 0 && (
        <Table
          label="Versions"
          caption="Versions, newest first"
          columns={[
            { header: 'Version', cell: (e) => `v${e.version}` },
            { header: 'Written', cell: (e) => <When iso={e.created_at} /> },
            {
              header: 'Action',
              cell: (e, i) =>
                i > 0 && (
                  <button type="button" onClick={() => restore.mutate(e.id)} disabled={restore.isPending}>
                    Restore v{e.version}
                  </button>
                ),
            },
          ]}
          rows={entries}
          rowKey={(e) => e.id}
        />
      )}
      {history.hasNextPage && (
        <button type="button" onClick={() => void history.fetchNextPage()}>
          Older versions
        </button>
      )}
      {a && b && (
        <>
          <h3>Compare two versions</h3>
          <div className="inline">
            <VersionSelect id="diff-left" label="From" entries={entries} value={a.id} onChange={setLeft} />
            <VersionSelect id="diff-right" label="To" entries={entries} value={b.id} onChange={setRight} />
          </div>
          <Suspense fallback={<p>Loading the diff…</p>}>
            <Diff left={a.data} right={b.data} leftLabel={`v${a.version}`} rightLabel={`v${b.version}`} />
          </Suspense>
        </>
      )}
    </section>
  );
}

function VersionSelect({
  id,
  label,
  entries,
  value,
  onChange,
}: {
  id: string;
  label: string;
  entries: HistoryEntry[];
  value: string;
  onChange(id: string): void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {entries.map((e) => (
          <option key={e.id} value={e.id}>
            v{e.version}
          </option>
        ))}
      </select>
    </div>
  );
}
