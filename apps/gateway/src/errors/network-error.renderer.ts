import { Injectable } from '@nestjs/common';
import { CommonErrorCode, type AppException, type ErrorRenderer } from '@app/errors';
import type { SchemaObject } from '@nestjs/swagger';
import type { Request } from 'express';
import { NetworkConfig } from '../network/network.config';
import { NetworkErrorCode, NetworkErrorException, type NetworkError } from './network-error.exception';

/** What a shared failure (auth, body parsing, rate limits, bugs) means in the network's vocabulary. */
const COMMON: Partial<Record<string, Omit<NetworkError, 'details'>>> = {
  [CommonErrorCode.Unauthenticated]: {
    message: 'Invalid OAuth access token - Cannot parse access token',
    type: 'OAuthException',
    code: NetworkErrorCode.AccessTokenInvalid,
  },
  [CommonErrorCode.RateLimited]: { message: '(#4) Application request limit reached', type: 'OAuthException', code: NetworkErrorCode.AppRateLimited },
  [CommonErrorCode.Unavailable]: { message: 'Service temporarily unavailable', type: 'OAuthException', code: NetworkErrorCode.Unavailable },
  [CommonErrorCode.Internal]: { message: 'An unknown error occurred', type: 'OAuthException', code: NetworkErrorCode.Unknown },
};
const INVALID: Omit<NetworkError, 'details'> = { message: '(#100) Invalid parameter', type: 'OAuthException', code: NetworkErrorCode.InvalidParameter };

const NETWORK_ERROR_BODY: SchemaObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code', 'error_data', 'fbtrace_id'],
      properties: {
        message: { type: 'string', example: '(#100) Invalid parameter' },
        type: { type: 'string', example: 'OAuthException' },
        code: { type: 'integer', example: NetworkErrorCode.InvalidParameter },
        error_subcode: { type: 'integer' },
        error_data: {
          type: 'object',
          properties: {
            messaging_product: { type: 'string', example: 'whatsapp' },
            details: { type: 'string', example: 'to: must be a phone number in digits with its country code' },
          },
        },
        fbtrace_id: { type: 'string', description: 'The request id (X-Request-Id).' },
      },
    },
  },
};

/** The spec's resources; other paths (health, docs, unknown routes) keep the shared body. */
const SPEC_PATHS = /^\/api\/(Messages|Medias|Templates|Webhooks|Profiles|Usage|Conversations|OptOuts|Sandbox)(\/|\?|$)/;

/**
 * Renders every refusal on the spec's endpoints in the network's error body
 * `{error: {message, type, code, error_data: {messaging_product, details}, fbtrace_id}}`.
 * Health and docs keep the shared `{message}` body, like the other services.
 */
@Injectable()
export class NetworkErrorRenderer implements ErrorRenderer {
  readonly schema = NETWORK_ERROR_BODY;

  constructor(private readonly config: NetworkConfig) {}

  /**
   * The network answers an invalid parameter 400: so do the shared 422s on its endpoints, those of the checks that run
   * before any DTO too (the request body reader: NUL, `__proto__`, depth, lossy numbers), wherever InvalidInputFilter does not answer them.
   */
  status(error: AppException, req: Request): number {
    return error.code === CommonErrorCode.ValidationFailed && SPEC_PATHS.test(req.originalUrl ?? req.url) ? 400 : error.status;
  }

  body(error: AppException, req: Request): unknown {
    if (!SPEC_PATHS.test(req.originalUrl ?? req.url)) return error.body();
    const network = error instanceof NetworkErrorException ? error.network : { ...(COMMON[error.code] ?? INVALID), details: detailsOf(error) };
    const { details, ...head } = network;
    return {
      error: {
        ...head,
        error_data: { messaging_product: this.config.NETWORK, details },
        fbtrace_id: String((req as Request & { id?: unknown }).id ?? ''),
      },
    };
  }
}

/** The shared body's field errors (`{errors: {field: [..]}}`) become `field: message` details. */
function detailsOf(error: AppException): string {
  const fields = (error.extras as { errors?: Record<string, string[]> }).errors;
  if (fields)
    return Object.entries(fields)
      .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
      .join('; ');
  return error.message;
}
