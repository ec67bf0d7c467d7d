import { AppException, CommonErrorCode } from '@app/errors';

export enum PushErrorCode {
  BatchNotFound = 'PUSH_BATCH_NOT_FOUND',
  NoValidItem = 'PUSH_NO_VALID_ITEM',
  IdempotencyKeyReused = 'PUSH_IDEMPOTENCY_KEY_REUSED',
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
