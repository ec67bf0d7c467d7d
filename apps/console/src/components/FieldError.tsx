import { errorsFor } from '../api/errors';

/**
 * An input's attributes and message for the API's errors about `field` (each shown beside its input):
 * `{...f.input}` on the input (aria-invalid, aria-describedby), `{f.message}` after it.
 */
export function fieldError(error: unknown, field: string | RegExp, id: string, describedBy?: string) {
  const messages = errorsFor(error, field);
  const errorId = `${id}-error`;
  const ids = [describedBy, messages.length > 0 ? errorId : undefined].filter(Boolean).join(' ');
  return {
    input: { 'aria-invalid': messages.length > 0 ? (true as const) : undefined, 'aria-describedby': ids || undefined },
    message:
      messages.length > 0 ? (
        <p id={errorId} className="field-error" data-field-error={String(field)}>
          {messages.join(' ')}
        </p>
      ) : null,
  };
}
