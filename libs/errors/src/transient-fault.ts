import { AppException } from './app.exception';
import { CommonErrorCode } from './common.exception';

/** How long a client waits before retrying after a transient fault. */
export const TRANSIENT_RETRY_AFTER_SECONDS = 5;

/**
 * SQLSTATEs that mean "the connection or the server went away, or the transaction lost a race":
 * the request did nothing that lasts, and the same request may succeed when retried.
 * Class 08: connection exceptions; 57P01/02/03/05: the server shut down, crashed, is starting or
 * in recovery, or ended an idle session; 25006: a read-only transaction (a failover left us on a
 * standby); 40001/40P01: a serialization failure or a deadlock; 53300: too many connections;
 * 25P03: the session's transaction sat idle past idle_in_transaction_session_timeout.
 */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P05', '25006', '25P03', '40001', '40P01', '53300']);

/** 57014 is any cancelled statement (a COPY the client failed too); only statement_timeout's is a stalled database. */
const STATEMENT_TIMEOUT = { code: '57014', message: /statement timeout/ };

/** Socket errors of a connection to a backend (they carry `syscall`; a client's own reset does not). */
const SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * node-postgres and pg-pool report a lost or unobtainable connection with these messages and no code, and a
 * statement whose answer did not come within query_timeout (a silent server) with `Query read timeout`.
 */
const LOST_CONNECTION =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Query read timeout$)/;

interface ErrorLike {
  code?: unknown;
  syscall?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
}

/**
 * Whether `error` is a transient fault of a backend connection: a lost PostgreSQL connection,
 * a failover, a pool or connect timeout, a statement timeout, a silent server, a deadlock. TypeORM's QueryFailedError and wrapped causes are
 * looked through.
 */
export function isTransientFault(error: unknown): boolean {
  return transientCause(error) !== null;
}

/** A short description of the transient cause of `error` (for the warn log line), or null when it is not one. */
export function transientCause(error: unknown, depth = 0): string | null {
  if (error === null || typeof error !== 'object' || depth > 3) return null;
  const e = error as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (TRANSIENT_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return `${code} ${message}`.trim();
  if (code === STATEMENT_TIMEOUT.code && STATEMENT_TIMEOUT.message.test(message)) return `${code} ${message}`;
  if (SOCKET_CODES.has(code) && typeof e.syscall === 'string') return `${code} (${e.syscall})`;
  if (code === '' && LOST_CONNECTION.test(message)) return message;
  return transientCause(e.driverError, depth + 1) ?? transientCause(e.cause, depth + 1);
}

/** 503 with Retry-After: the service could not reach a backend for a moment; the client retries. */
export class TransientFaultException extends AppException {
  constructor(readonly transientCause: string) {
    super(
      CommonErrorCode.Unavailable,
      503,
      'Service temporarily unavailable; retry shortly.',
      { retry_after: TRANSIENT_RETRY_AFTER_SECONDS },
      { 'Retry-After': String(TRANSIENT_RETRY_AFTER_SECONDS) },
    );
  }
}
