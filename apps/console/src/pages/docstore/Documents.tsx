import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useApiMutation } from '../../api/hooks';
import { LIVE_LABEL, useLiveChanges } from '../../api/live-changes';
import { useSession } from '../../auth/session';
import { ErrorNote } from '../../components/ErrorNote';
import { List } from '../../components/List';
import { fieldError } from '../../components/FieldError';
import { When } from '../../components/When';
import { CollectionPicker } from './CollectionPicker';
import { collectionFrom, collectionParams, documentPage, documentsPage, type Collection } from './paths';

const OPERATORS = [
  ['', 'equals'],
  ['_neq', 'not equal'],
  ['_gt', 'greater than'],
  ['_gte', 'at least'],
  ['_lt', 'less than'],
  ['_lte', 'at most'],
  ['_like', 'contains'],
] as const;

interface Filter {
  field: string;
  op: string;
  value: string;
}

/** A collection's documents with the API's filters (`filter[field_op]`) and sort, and a form to create one. */
export default function Documents() {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const collection = collectionFrom(params);
  return (
    <>
      <h1>Documents</h1>
      <CollectionPicker key={collection ? documentsPage(collection) : 'none'} value={collection} onPick={(c) => navigate(documentsPage(c))} />
      {collection && <CollectionDocuments collection={collection} params={params} setParams={setParams} />}
    </>
  );
}

function CollectionDocuments({ collection, params, setParams }: { collection: Collection; params: URLSearchParams; setParams(p: URLSearchParams): void }) {
  const { credentials } = useSession();
  const client = credentials.docstoreClient!;
  const [filter, setFilter] = useState<Filter>({ field: '', op: '', value: '' });
  const [sort, setSort] = useState(params.get('sort') ?? '');
  // The page's address keeps the API's own `filter[field_op]` names; the client writes them back from `filter`.
  const filters: Record<string, string> = {};
  for (const [k, v] of params) {
    const name = /^filter\[(.+)\]$/.exec(k)?.[1];
    if (name) filters[name] = v;
  }
  const listQuery = {
    filter: Object.keys(filters).length ? filters : undefined,
    sort: params.get('sort') || undefined,
    deleted: params.get('deleted') === 'true' ? true : undefined,
  };

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams(params);
    if (filter.field) next.set(`filter[${filter.field}${filter.op}]`, filter.value);
    if (sort) next.set('sort', sort);
    else next.delete('sort');
    setParams(next);
    setFilter({ field: '', op: '', value: '' });
  };
  const remove = (key: string) => {
    const next = new URLSearchParams(params);
    next.delete(key);
    setParams(next);
  };
  const active = [...params.keys()].filter((k) => k.startsWith('filter['));
  const live = useLiveChanges(`${collection.environment}/${collection.context}/${collection.type}`);

  return (
    <>
      <p role="status">{LIVE_LABEL[live]}</p>
      <NewDocument collection={collection} />
      <h2>Filter and sort</h2>
      <form onSubmit={apply} className="inline" aria-label="Filter and sort">
        <div className="field">
          <label htmlFor="filter-field">Field</label>
          <input id="filter-field" placeholder="price or address.city" value={filter.field} onChange={(e) => setFilter({ ...filter, field: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="filter-op">Comparison</label>
          <select id="filter-op" value={filter.op} onChange={(e) => setFilter({ ...filter, op: e.target.value })}>
            {OPERATORS.map(([op, label]) => (
              <option key={op} value={op}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-value">Value</label>
          <input id="filter-value" value={filter.value} onChange={(e) => setFilter({ ...filter, value: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="sort">Sort</label>
          <input id="sort" placeholder="-price,_key" value={sort} onChange={(e) => setSort(e.target.value)} />
        </div>
        <button type="submit">Apply</button>
      </form>
      {active.length > 0 && (
        <ul aria-label="Active filters" className="chips">
          {active.map((k) => (
            <li key={k}>
              <code>
                {k}={params.get(k)}
              </code>{' '}
              <button type="button" onClick={() => remove(k)} aria-label={`Remove filter ${k}`}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <List
        service="docstore"
        path="/api/v1/client/{client}/{environment}/context/{context}/type/{type}"
        init={{ params: { path: collectionParams(client, collection), query: listQuery } }}
        label="Documents"
        columns={[
          { header: 'Key', cell: (d) => <Link to={documentPage(collection, d.key)}>{d.key}</Link> },
          { header: 'Version', cell: (d) => d.version },
          { header: 'Updated', cell: (d) => <When iso={d.updated_at} /> },
          { header: 'Data', cell: (d) => <code className="clip">{JSON.stringify(d.data)}</code> },
        ]}
        rowKey={(d) => d.id}
      />
    </>
  );
}

function NewDocument({ collection }: { collection: Collection }) {
  const { credentials } = useSession();
  const navigate = useNavigate();
  const [key, setKey] = useState('');
  const [data, setData] = useState('{\n  \n}');
  const [parseError, setParseError] = useState('');
  const create = useApiMutation(
    'docstore',
    'post',
    '/api/v1/client/{client}/{environment}/context/{context}/type/{type}/{key}',
    (v: { key: string; data: Record<string, unknown> }) => ({
      params: { path: { ...collectionParams(credentials.docstoreClient!, collection), key: v.key } },
      body: { ...collection, key: v.key, data: v.data },
    }),
  );
  const keyError = fieldError(create.error, 'key', 'new-key');
  const dataError = fieldError(create.error, 'data', 'new-data');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParseError('');
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(data) as Record<string, unknown>;
    } catch (err) {
      return setParseError(`The data is not JSON: ${(err as Error).message}`);
    }
    create.mutate({ key, data: parsed }, { onSuccess: (d) => void navigate(documentPage(collection, d.key)) });
  };
  return (
    <details className="card">
      <summary>Create a document</summary>
      <form onSubmit={submit} aria-label="Create a document">
        <div className="field">
          <label htmlFor="new-key">Key</label>
          <input id="new-key" required value={key} onChange={(e) => setKey(e.target.value)} {...keyError.input} />
          {keyError.message}
        </div>
        <div className="field">
          <label htmlFor="new-data">Data (a JSON object)</label>
          <textarea id="new-data" rows={6} value={data} onChange={(e) => setData(e.target.value)} {...dataError.input} />
          {dataError.message}
        </div>
        {parseError && (
          <p role="alert" className="error">
            {parseError}
          </p>
        )}
        <ErrorNote error={create.error} />
        <button type="submit" disabled={create.isPending}>
          Create
        </button>
      </form>
    </details>
  );
}
