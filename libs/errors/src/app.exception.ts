/** Extra fields rendered beside `message` in the error body. */
export type ErrorExtras = Record<string, unknown>;

/**
 * Base of every error a service throws on purpose. `code` names the failure for logs
 * and tests; `status`, `message` and `extras` make the response body; `headers` are
 * added to the response (e.g. Retry-After).
 */
export class AppException extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly extras: ErrorExtras = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  body(): ErrorExtras & { message: string } {
    return { message: this.message, ...this.extras };
  }
}
