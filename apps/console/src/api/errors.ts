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

  /**
   * Field errors: a 422's `{errors: {field: [..]}}` (docstore, ingestion, push) or schema `{errors: [{property, message}]}`,
   * and the gateway's `error.error_data.details` (`to: must be a phone number…`, the field by its path, then the rule).
   */
  get fieldErrors(): Array<{ field: string; message: string }> {
    const details = gatewayDetails(this.body);
    if (details) {
      const named = /^([A-Za-z_][\w.[\]]*): (.+)$/s.exec(details);
      return [named ? { field: named[1], message: named[2] } : { field: '', message: details }];
    }
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

/** The gateway's `error.error_data.details`, when the body has one. */
export function gatewayDetails(body: unknown): string | undefined {
  const details = (body as { error?: { error_data?: { details?: unknown } } } | null)?.error?.error_data?.details;
  return typeof details === 'string' && details ? details : undefined;
}

/**
 * The messages of `errors` about `field`: the field itself or a path inside it (`data` takes `data.price`), or every
 * field a pattern matches (`/^pushs\.\d+\.nm_push$/`).
 */
export function errorsFor(error: unknown, field: string | RegExp): string[] {
  if (!(error instanceof ApiError)) return [];
  const about = (name: string) =>
    typeof field === 'string' ? name === field || name.startsWith(`${field}.`) || name.startsWith(`${field}[`) : field.test(name);
  return error.fieldErrors.filter((f) => about(f.field)).map((f) => (f.field === field ? f.message : `${f.field}: ${f.message}`));
}
