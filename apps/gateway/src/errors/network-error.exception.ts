import { AppException } from '@app/errors';

/** The chat network's error codes the gateway answers with (the Cloud API's own numbers). */
export enum NetworkErrorCode {
  Unknown = 1,
  Unavailable = 2,
  AppRateLimited = 4,
  InvalidParameter = 100,
  AccessTokenInvalid = 190,
  Throughput = 130429,
  Undeliverable = 131026,
  RequiredParameterMissing = 131008,
  ParameterValueInvalid = 131009,
  MediaUploadError = 131053,
  TemplateParamCountMismatch = 132000,
  TemplateMissing = 132001,
  TemplateNotApproved = 132015,
  ReEngagement = 131047,
  MarketingOptOut = 131050,
  NotFound = 33,
}

/** Codes for the gateway's coded exceptions (the string codes the one filter and tests see). */
export enum GatewayErrorCode {
  InvalidParameter = 'GW_INVALID_PARAMETER',
  NotFound = 'GW_NOT_FOUND',
  Throughput = 'GW_THROUGHPUT',
  Upstream = 'GW_UPSTREAM',
  Unsupported = 'GW_UNSUPPORTED',
  Conflict = 'GW_CONFLICT',
  TooLarge = 'GW_TOO_LARGE',
  Forbidden = 'GW_FORBIDDEN',
  WindowClosed = 'GW_WINDOW_CLOSED',
  OptedOut = 'GW_OPTED_OUT',
}

export interface NetworkError {
  message: string;
  type: string;
  code: number;
  error_subcode?: number;
  details: string;
}

/**
 * A refusal rendered in the network's own body:
 * `{error: {message, type, code, error_data: {messaging_product, details}, fbtrace_id}}`.
 */
export class NetworkErrorException extends AppException {
  constructor(
    code: string,
    status: number,
    readonly network: NetworkError,
    headers: Record<string, string> = {},
  ) {
    super(code, status, network.message, {}, headers);
  }
}

/** 400: one field breaks one rule. `field` is its path in the body (`interactive.action.buttons.3.reply.title`). */
export class InvalidParameterException extends NetworkErrorException {
  constructor(
    readonly field: string,
    rule: string,
  ) {
    super(GatewayErrorCode.InvalidParameter, 400, {
      message: '(#100) Invalid parameter',
      type: 'OAuthException',
      code: NetworkErrorCode.InvalidParameter,
      details: `${field}: ${rule}`,
    });
  }
}

/** 404: an id of no resource of the account (named apart from Nest's NotFoundException, which renders another body). */
export class ResourceNotFoundException extends NetworkErrorException {
  constructor(what: string, id: string) {
    super(GatewayErrorCode.NotFound, 404, {
      message: `Unsupported get request. Object with ID '${id}' does not exist`,
      type: 'GraphMethodException',
      code: NetworkErrorCode.InvalidParameter,
      error_subcode: NetworkErrorCode.NotFound,
      details: `No ${what} with id ${id} for this account.`,
    });
  }
}

export class ForbiddenPhoneException extends NetworkErrorException {
  constructor(phoneId: string) {
    super(GatewayErrorCode.Forbidden, 403, {
      message: '(#200) Permissions error',
      type: 'OAuthException',
      code: 200,
      details: `phone_id: ${phoneId} is not a phone of this account.`,
    });
  }
}

export class ThroughputException extends NetworkErrorException {
  constructor(limit: number, retryAfterSeconds: number) {
    super(
      GatewayErrorCode.Throughput,
      429,
      {
        message: '(#130429) Rate limit hit',
        type: 'OAuthException',
        code: NetworkErrorCode.Throughput,
        details: `Cloud API message throughput has been reached: at most ${limit} messages per second for this phone.`,
      },
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}

export class FileTooLargeException extends NetworkErrorException {
  constructor(kind: string, limit: number) {
    super(GatewayErrorCode.TooLarge, 413, {
      message: '(#131053) Media upload error',
      type: 'OAuthException',
      code: NetworkErrorCode.MediaUploadError,
      details: `File: a ${kind} file may be at most ${limit} bytes.`,
    });
  }
}

/** An upstream failure: the network's own code and message are kept. */
export class UpstreamException extends NetworkErrorException {
  constructor(status: number, error: NetworkError, headers: Record<string, string> = {}) {
    super(GatewayErrorCode.Upstream, status, error, headers);
  }
}
