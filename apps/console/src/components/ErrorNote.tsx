import { ApiError } from '../api/errors';

/** An API error as the API words it (and its field errors), announced to screen readers. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const fields = error instanceof ApiError ? error.fieldErrors : [];
  return (
    <div role="alert" className="error">
      <p>
        {error instanceof ApiError ? <strong>{error.status}: </strong> : null}
        {message}
      </p>
      {fields.length > 0 && (
        <ul aria-label="Field errors">
          {fields.map((f, i) => (
            <li key={i}>
              {f.field && <code>{f.field}</code>} {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
