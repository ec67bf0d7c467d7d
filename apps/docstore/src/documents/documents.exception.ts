import { AppException } from '@app/errors';

export enum DocumentErrorCode {
  NotFound = 'DOCUMENT_NOT_FOUND',
  AlreadyExists = 'DOCUMENT_ALREADY_EXISTS',
  PathMismatch = 'DOCUMENT_PATH_MISMATCH',
  VersionMismatch = 'DOCUMENT_VERSION_MISMATCH',
  HistoryEntryNotFound = 'HISTORY_ENTRY_NOT_FOUND',
  InvalidQuery = 'DOCUMENT_QUERY_INVALID',
  WriteConflict = 'DOCUMENT_WRITE_CONFLICT',
}

export class DocumentNotFoundException extends AppException {
  constructor() {
    super(DocumentErrorCode.NotFound, 404, 'Document not found.');
  }
}

export class DocumentAlreadyExistsException extends AppException {
  constructor() {
    super(DocumentErrorCode.AlreadyExists, 409, 'A document already exists at this key.');
  }
}

/** Body environment, context, type or key differs from the path: the spec's 400. */
export class DocumentPathMismatchException extends AppException {
  constructor(field: string) {
    super(DocumentErrorCode.PathMismatch, 400, `The ${field} in the body does not match the ${field} in the URL.`);
  }
}

/** If-Match named another version. */
export class DocumentVersionMismatchException extends AppException {
  constructor(current: number) {
    super(DocumentErrorCode.VersionMismatch, 412, `The document is at version ${current}; If-Match does not match.`);
  }
}

export class HistoryEntryNotFoundException extends AppException {
  constructor() {
    super(DocumentErrorCode.HistoryEntryNotFound, 404, 'History entry not found.');
  }
}

/** Concurrent writes to the same documents kept deadlocking or conflicting, even after retries. */
export class DocumentWriteConflictException extends AppException {
  constructor() {
    super(DocumentErrorCode.WriteConflict, 409, 'Concurrent writes to the same documents kept conflicting; send the request again.');
  }
}
