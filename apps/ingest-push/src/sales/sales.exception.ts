import { AppException } from '@app/errors';

export enum SalesErrorCode {
  MalformedFile = 'SALES_MALFORMED_FILE',
  MostlyErrors = 'SALES_MOSTLY_ERRORS',
  FileTooLarge = 'SALES_FILE_TOO_LARGE',
  UnsupportedMediaType = 'SALES_UNSUPPORTED_MEDIA_TYPE',
  BodyTimeout = 'SALES_BODY_TIMEOUT',
  BodyTooSlow = 'SALES_BODY_TOO_SLOW',
  Busy = 'SALES_BUSY',
  IngestionNotFound = 'SALES_INGESTION_NOT_FOUND',
  InvalidIngestionId = 'SALES_INVALID_INGESTION_ID',
  IngestionIdInUse = 'SALES_INGESTION_ID_IN_USE',
  IngestionEnded = 'SALES_INGESTION_ENDED',
  IngestionCancelled = 'SALES_INGESTION_CANCELLED',
  ClientClosedRequest = 'SALES_CLIENT_CLOSED_REQUEST',
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
    super(SalesErrorCode.UnsupportedMediaType, 415, 'Send the file as application/json (an array of Sale objects) or application/csv (text/csv).');
  }
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
