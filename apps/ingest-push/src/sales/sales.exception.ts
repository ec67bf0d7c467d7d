import { AppException } from '@app/errors';

export enum SalesErrorCode {
  MalformedFile = 'SALES_MALFORMED_FILE',
  MostlyErrors = 'SALES_MOSTLY_ERRORS',
  FileTooLarge = 'SALES_FILE_TOO_LARGE',
  UnsupportedMediaType = 'SALES_UNSUPPORTED_MEDIA_TYPE',
  UnsupportedContentEncoding = 'SALES_UNSUPPORTED_CONTENT_ENCODING',
  ErrorBudgetExceeded = 'SALES_ERROR_BUDGET_EXCEEDED',
  BodyTimeout = 'SALES_BODY_TIMEOUT',
  BodyTooSlow = 'SALES_BODY_TOO_SLOW',
  Busy = 'SALES_BUSY',
  IngestionNotFound = 'SALES_INGESTION_NOT_FOUND',
  InvalidIngestionId = 'SALES_INVALID_INGESTION_ID',
  IngestionIdInUse = 'SALES_INGESTION_ID_IN_USE',
  IngestionEnded = 'SALES_INGESTION_ENDED',
  IngestionCancelled = 'SALES_INGESTION_CANCELLED',
  ClientClosedRequest = 'SALES_CLIENT_CLOSED_REQUEST',
  InvalidCpfCnpj = 'SALES_INVALID_CPF_CNPJ',
  ErasureNotConfigured = 'SALES_ERASURE_NOT_CONFIGURED',
}

/** The file cannot be read as a whole (not a JSON array, no CSV header, truncated, …): 400, nothing kept. */
export class MalformedSalesFileException extends AppException {
  constructor(reason: string, line?: number) {
    super(SalesErrorCode.MalformedFile, 400, line === undefined ? reason : `${reason} (line ${line})`, line === undefined ? {} : { line });
  }
}

/** More than half of the first `sample` records were rejected: the file is not Sale data, so the upload stops early. */
export class MostlyErrorsException extends AppException {
  constructor(rejected: number, sample: number) {
    super(
      SalesErrorCode.MostlyErrors,
      400,
      `More than half of the first ${sample} records were rejected (${rejected}); the upload was stopped and nothing was kept.`,
      { rejected, sample },
    );
  }
}

export class SalesFileTooLargeException extends AppException {
  constructor(limitBytes: number) {
    super(SalesErrorCode.FileTooLarge, 413, `The file is larger than ${limitBytes} bytes; split it into parts (the upload tool does).`, {
      limit_bytes: limitBytes,
    });
  }
}

export class UnsupportedSalesMediaTypeException extends AppException {
  constructor() {
    super(
      SalesErrorCode.UnsupportedMediaType,
      415,
      'Send the file as application/json (an array of Sale objects), application/x-ndjson (one Sale object per line) or application/csv (text/csv).',
    );
  }
}

/** A Content-Encoding other than gzip, deflate or identity (or more than one): 415, before a byte is read. */
export class UnsupportedContentEncodingException extends AppException {
  constructor(encoding: string) {
    super(
      SalesErrorCode.UnsupportedContentEncoding,
      415,
      `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not accepted: send the file as is, or compressed once with gzip or deflate.`,
      { accepted: ['gzip', 'deflate', 'identity'] },
    );
  }
}

/** What an upload's error budget (max_error_ratio, max_errors) allowed and what the file had. */
export interface ErrorBudgetOutcome {
  received: number;
  rejected: number;
  maxErrorRatio?: number;
  maxErrors?: number;
}

/** More records were rejected than the upload's error budget allows: 422, the whole upload rolled back. */
export class ErrorBudgetExceededException extends AppException {
  constructor(outcome: ErrorBudgetOutcome, complete: boolean) {
    const { received, rejected, maxErrorRatio, maxErrors } = outcome;
    const ratio = received === 0 ? 0 : rejected / received;
    const limits = [
      ...(maxErrorRatio === undefined ? [] : [`max_error_ratio ${maxErrorRatio}`]),
      ...(maxErrors === undefined ? [] : [`max_errors ${maxErrors}`]),
    ].join(' and ');
    const seen = complete ? `${rejected} of ${received} records were rejected` : `${rejected} records were rejected by record ${received}`;
    super(
      SalesErrorCode.ErrorBudgetExceeded,
      422,
      `${seen} (error ratio ${roundRatio(ratio)}), over ${limits}; the whole upload was rolled back and nothing was kept.`,
      {
        rejected,
        received,
        error_ratio: roundRatio(ratio),
        ...(maxErrorRatio === undefined ? {} : { max_error_ratio: maxErrorRatio }),
        ...(maxErrors === undefined ? {} : { max_errors: maxErrors }),
      },
    );
  }
}

function roundRatio(ratio: number): number {
  return Math.round(ratio * 1e6) / 1e6;
}

/** No byte of the body arrived for the idle timeout: 408, nothing kept. */
export class SalesBodyTimeoutException extends AppException {
  constructor(idleMs: number) {
    super(SalesErrorCode.BodyTimeout, 408, `No data arrived for ${idleMs} ms; the upload was cancelled and nothing was kept.`);
  }
}

/** The body arrived slower than the minimum rate over the window: 408, nothing kept. */
export class SalesBodyTooSlowException extends AppException {
  constructor(minBytesPerSecond: number, windowSeconds: number) {
    super(
      SalesErrorCode.BodyTooSlow,
      408,
      `The file arrived slower than ${minBytesPerSecond} bytes/s over ${windowSeconds} s; the upload was cancelled and nothing was kept.`,
      { min_bytes_per_second: minBytesPerSecond, window_seconds: windowSeconds },
    );
  }
}

/** This instance, or this account on it, already runs as many uploads as it may: 503 with Retry-After. */
export class SalesBusyException extends AppException {
  constructor(retryAfterSeconds: number, scope: 'instance' | 'account') {
    const message =
      scope === 'account' ? 'Your account already runs as many uploads as it may at once; retry shortly.' : 'Too many uploads are running; retry shortly.';
    super(SalesErrorCode.Busy, 503, message, { retry_after: retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
  }
}

export class IngestionNotFoundException extends AppException {
  constructor() {
    super(SalesErrorCode.IngestionNotFound, 404, 'Ingestion not found.');
  }
}

export class InvalidIngestionIdException extends AppException {
  constructor() {
    super(SalesErrorCode.InvalidIngestionId, 400, 'X-Ingestion-Id must be a UUID.');
  }
}

/** The id an upload names (X-Ingestion-Id) is already an ingestion: 409 with its status when it is the caller's. */
export class IngestionIdInUseException extends AppException {
  constructor(ingestionId: string, status: string | null) {
    super(
      SalesErrorCode.IngestionIdInUse,
      409,
      status === null ? 'This ingestion id is already in use.' : `This ingestion id is already in use; that ingestion is ${status}.`,
      status === null ? { ingestion_id: ingestionId } : { ingestion_id: ingestionId, status },
    );
  }
}

/** DELETE of an ingestion that already ended: 409 naming how. */
export class IngestionEndedException extends AppException {
  constructor(ingestionId: string, status: string) {
    super(SalesErrorCode.IngestionEnded, 409, `The ingestion already ended: ${status}.`, { ingestion_id: ingestionId, status });
  }
}

/** The answer to an upload that was cancelled (DELETE …/ingestions/{id}) while it ran. */
export class IngestionCancelledException extends AppException {
  constructor(ingestionId: string) {
    super(SalesErrorCode.IngestionCancelled, 409, 'The ingestion was cancelled; nothing was kept.', { ingestion_id: ingestionId, status: 'cancelled' });
  }
}

/** The client closed the connection before the upload ended (nginx's 499): nobody reads the answer, nothing is kept. */
export class ClientClosedRequestException extends AppException {
  constructor() {
    super(SalesErrorCode.ClientClosedRequest, 499, 'The client closed the connection before the upload ended; nothing was kept.');
  }
}

/** The path's CPF/CNPJ holds no digit, or too many (more than 32) or too much else to be one. */
export class InvalidCpfCnpjException extends AppException {
  constructor() {
    super(SalesErrorCode.InvalidCpfCnpj, 400, 'The path must end with a CPF or CNPJ: 1 to 32 digits, with any punctuation (at most 64 characters).');
  }
}

/** Erasing needs the key of the erased customers' hashes (ENCRYPTION_KEYS), which this deployment lacks. */
export class ErasureNotConfiguredException extends AppException {
  constructor() {
    super(SalesErrorCode.ErasureNotConfigured, 503, 'Customer erasure is not configured on this service (ENCRYPTION_KEYS is unset); nothing was erased.');
  }
}
