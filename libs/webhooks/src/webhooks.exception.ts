import { AppException } from '@app/errors';

export enum WebhookErrorCode {
  NotFound = 'WEBHOOK_NOT_FOUND',
  UrlTaken = 'WEBHOOK_URL_TAKEN',
  LimitReached = 'WEBHOOK_LIMIT_REACHED',
  Inactive = 'WEBHOOK_INACTIVE',
  DeliveryNotFound = 'WEBHOOK_DELIVERY_NOT_FOUND',
  DeliveryQueued = 'WEBHOOK_DELIVERY_QUEUED',
}

export class WebhookNotFoundException extends AppException {
  constructor() {
    super(WebhookErrorCode.NotFound, 404, 'Webhook not found.');
  }
}

export class WebhookUrlTakenException extends AppException {
  constructor(field = 'url') {
    super(WebhookErrorCode.UrlTaken, 409, `A webhook with this ${field} already exists.`, { errors: { [field]: [`The ${field} has already been taken.`] } });
  }
}

/** 422 in the shared body, the URL's field named: the owner has WEBHOOKS_MAX_PER_OWNER webhooks already. */
export class WebhookLimitReachedException extends AppException {
  constructor(
    readonly max: number,
    field = 'url',
  ) {
    const message = `At most ${max} webhooks are allowed: delete one to add another.`;
    super(WebhookErrorCode.LimitReached, 422, message, { errors: { [field]: [message] } });
  }
}

export class WebhookInactiveException extends AppException {
  constructor() {
    super(WebhookErrorCode.Inactive, 409, 'The webhook is inactive: activate it before redelivering.');
  }
}

export class DeliveryNotFoundException extends AppException {
  constructor() {
    super(WebhookErrorCode.DeliveryNotFound, 404, 'Delivery not found.');
  }
}

export class DeliveryQueuedException extends AppException {
  constructor() {
    super(WebhookErrorCode.DeliveryQueued, 409, 'The delivery is already queued.');
  }
}
