/** An answer the API refused, with its message as the API words it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Field errors of a 422: docstore/ingestion `{errors: {field: [..]}}` or schema `{errors: [{property, message}]}`. */
  get fieldErrors(): Array<{ field: string; message: string }> {
    const errors = (this.body as { errors?: unknown } | null)?.errors;
    if (Array.isArray(errors)) {
      return errors.map((e: { property?: string; message?: string }) => ({ field: String(e.property ?? ''), message: String(e.message ?? '') }));
    }
    if (errors && typeof errors === 'object') {
      return Object.entries(errors as Record<string, unknown>).flatMap(([field, messages]) =>
        (Array.isArray(messages) ? messages : [messages]).map((m) => ({ field, message: String(m) })),
      );
    }
    return [];
  }
}

/**
 * The message of an error body: `{message}` (docstore, ingestion, push), `{error: {message}}` (gateway, as the
 * network words it), else the status line.
 */
export function errorMessage(status: number, statusText: string, body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as { message?: unknown; error?: unknown };
    if (typeof b.message === 'string' && b.message) return b.message;
    if (b.error && typeof b.error === 'object' && typeof (b.error as { message?: unknown }).message === 'string')
      return (b.error as { message: string }).message;
    if (typeof b.error === 'string' && b.error) return b.error;
  }
  if (typeof body === 'string' && body.trim()) return body.trim().slice(0, 500);
  return `${status} ${statusText}`.trim();
}
