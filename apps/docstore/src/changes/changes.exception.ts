import { AppException } from '@app/errors';

export enum ChangesErrorCode {
  CursorGone = 'CHANGES_CURSOR_GONE',
}

/** 410: changes after the cursor were dropped by retention; resync, then follow from `oldest_cursor`. */
export class ChangesCursorGoneException extends AppException {
  constructor(oldestCursor: string) {
    super(ChangesErrorCode.CursorGone, 410, 'Changes after this cursor are past retention: read the documents again, then follow from oldest_cursor.', {
      oldest_cursor: oldestCursor,
    });
  }
}
