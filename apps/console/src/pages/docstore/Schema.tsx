import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '../../api/errors';
import { useApiMutation, useApiQuery } from '../../api/hooks';
import { useSession } from '../../auth/session';
import { useConfirm } from '../../components/Confirm';
import { ErrorNote } from '../../components/ErrorNote';
import { CollectionPicker } from './CollectionPicker';
import { collectionFrom, collectionParams, type Collection } from './paths';

const SCHEMA = '/api/v1/client/{client}/{environment}/context/{context}/type/{type}/schema';

/** A collection's JSON Schema: read, replace (422 errors shown where the API names them), delete. */
export default function Schema() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const collection = collectionFrom(params);
  return (
    <>
      <h1>Schema</h1>
      <CollectionPicker value={collection} onPick={(c) => navigate(`/docstore/schema?${new URLSearchParams({ ...c })}`)} />
      {collection && <SchemaEditor key={JSON.stringify(collection)} collection={collection} />}
    </>
  );
}

function SchemaEditor({ collection }: { collection: Collection }) {
  const { credentials } = useSession();
  const params = { path: collectionParams(credentials.docstoreClient!, collection) };
  const current = useApiQuery('docstore', SCHEMA, { params }, { retry: false });
  const missing = current.error instanceof ApiError && current.error.status === 404;
  const [text, setText] = useState<string | null>(null);
  const [parseError, setParseError] = useState('');
  const save = useApiMutation('docstore', 'post', SCHEMA, (schema: Record<string, unknown>) => ({ params, body: { schema } }));
  const remove = useApiMutation('docstore', 'delete', SCHEMA, () => ({ params }));
  const [confirm, dialog] = useConfirm();
  const shown = text ?? (current.data ? JSON.stringify(current.data.schema, null, 2) : '{\n  "type": "object"\n}');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParseError('');
    try {
      save.mutate(JSON.parse(shown) as Record<string, unknown>);
    } catch (err) {
      setParseError(`The schema is not JSON: ${(err as Error).message}`);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Schema editor" className="card">
      {missing ? <p>This collection has no schema yet.</p> : <ErrorNote error={current.error} />}
      <div className="field">
        <label htmlFor="schema-text">JSON Schema</label>
        <textarea id="schema-text" rows={14} value={shown} onChange={(e) => setText(e.target.value)} aria-describedby="schema-errors" />
      </div>
      <div id="schema-errors">
        {parseError && (
          <p role="alert" className="error">
            {parseError}
          </p>
        )}
        <ErrorNote error={save.error ?? remove.error} />
      </div>
      {save.isSuccess && <p role="status">Schema saved.</p>}
      {remove.isSuccess && <p role="status">Schema deleted.</p>}
      <button type="submit" disabled={save.isPending}>
        Save schema
      </button>{' '}
      {current.data && (
        <button
          type="button"
          onClick={() =>
            confirm({
              title: 'Delete this schema?',
              body: <p>Writes to the collection are no longer checked. Its documents stay as they are; you can save a schema again later.</p>,
              action: 'Delete schema',
              run: () => remove.mutate(undefined, { onSuccess: () => setText(null) }),
            })
          }
          disabled={remove.isPending}
        >
          Delete schema
        </button>
      )}
      {dialog}
    </form>
  );
}
