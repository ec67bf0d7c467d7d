import { AppException, CommonErrorCode, UnauthenticatedException } from '@app/errors';

export enum PushErrorCode {
  BatchNotFound = 'PUSH_BATCH_NOT_FOUND',
  NoValidItem = 'PUSH_NO_VALID_ITEM',
  IdempotencyKeyReused = 'PUSH_IDEMPOTENCY_KEY_REUSED',
  PushNotFound = 'PUSH_NOT_FOUND',
  PushNotSent = 'PUSH_NOT_SENT',
}

/** An open reported with a token that is not this push's. */
export class BadOpenTokenException extends UnauthenticatedException {
  constructor() {
    super('The open_token does not belong to this push_id.');
  }
}

/** An open of a push that no longer exists (its batch was deleted after PUSH_RETENTION_DAYS). */
export class PushNotFoundException extends AppException {
  constructor() {
    super(PushErrorCode.PushNotFound, 404, 'Push not found.');
  }
}

/** An open of a push that never went out (capped, quiet, cancelled, failed): not counted. */
export class PushNotSentException extends AppException {
  constructor(status: string) {
    super(PushErrorCode.PushNotSent, 409, `This push was not sent (it is ${status}); its open is not counted.`, { status });
  }
}

export class PushBatchNotFoundException extends AppException {
  constructor() {
    super(PushErrorCode.BatchNotFound, 404, 'Push batch not found.');
  }
}

/** Every item was refused: nothing is stored, and the answer says why for each. */
export class NoValidPushException extends AppException {
  constructor(items: unknown[]) {
    super(PushErrorCode.NoValidItem, 422, 'No push in the request is valid; nothing was scheduled.', { accepted: 0, rejected: items.length, items });
  }
}

export class IdempotencyKeyReusedException extends AppException {
  constructor() {
    super(PushErrorCode.IdempotencyKeyReused, 422, 'This Idempotency-Key was already used with a different request body.');
  }
}

export class TooManyPushesException extends AppException {
  constructor(max: number, given: number) {
    super(CommonErrorCode.PayloadTooLarge, 413, `At most ${max} pushes per request (PUSH_MAX_ITEMS); this one has ${given}.`, { max_items: max });
  }
}
