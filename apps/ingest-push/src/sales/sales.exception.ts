import { AppException } from '@app/errors';

export enum SalesErrorCode {
  MalformedFile = 'SALES_MALFORMED_FILE',
  FileTooLarge = 'SALES_FILE_TOO_LARGE',
  UnsupportedMediaType = 'SALES_UNSUPPORTED_MEDIA_TYPE',
  BodyTimeout = 'SALES_BODY_TIMEOUT',
  Busy = 'SALES_BUSY',
  IngestionNotFound = 'SALES_INGESTION_NOT_FOUND',
}

/** The file cannot be read as a whole (not a JSON array, no CSV header, truncated, …): 400, nothing kept. */
export class MalformedSalesFileException extends AppException {
  constructor(reason: string, line?: number) {
    super(SalesErrorCode.MalformedFile, 400, line === undefined ? reason : `${reason} (line ${line})`, line === undefined ? {} : { line });
  }
}

export class SalesFileTooLargeException extends AppException {
  constructor(limitBytes: number) {
    super(SalesErrorCode.FileTooLarge, 413, `The file is larger than ${limitBytes} bytes; split it into parts (the upload tool does).`, { limit_bytes: limitBytes });
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

/** This instance already runs as many uploads as it may: 503 with Retry-After. */
export class SalesBusyException extends AppException {
  constructor(retryAfterSeconds: number) {
    super(SalesErrorCode.Busy, 503, 'Too many uploads are running; retry shortly.', { retry_after: retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
  }
}

export class IngestionNotFoundException extends AppException {
  constructor() {
    super(SalesErrorCode.IngestionNotFound, 404, 'Ingestion not found.');
  }
}
