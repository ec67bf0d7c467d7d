import { ArgumentsHost, Catch, HttpException, Logger, Optional, type ExceptionFilter } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { SchemaObject } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppException } from './app.exception';
import { InvalidRequestException, CommonErrorCode } from './common.exception';
import { transientCause, TransientFaultException } from './transient-fault';

/** Errors thrown by body-parser and other Express middleware carry these. */
interface HttpErrorLike {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
}

/**
 * Adds what is known about the caller (rate-limit headers) to an answer the guard never
 * saw: an unknown route. Provided by the auth lib; without one such answers go as they are.
 */
export interface CallerHeaders {
  /** Sets the caller's headers when its credentials verify; never throws, never counts a failure. */
  annotate(req: Request, res: Response): Promise<void>;
}

export const CALLER_HEADERS = Symbol('CALLER_HEADERS');

/** A service whose spec has another error body renders it here (a provider under ERROR_RENDERER). */
export interface ErrorRenderer {
  body(error: AppException, req: Request): unknown;
  /** The status the spec gives the error there, when it differs from the error's own (a shared 422 the spec calls 400). */
  status?(error: AppException, req: Request): number;
  /** The OpenAPI schema of what `body` renders on the documented endpoints. */
  readonly schema: SchemaObject;
}

export const ERROR_RENDERER = Symbol('ERROR_RENDERER');

/**
 * The one place an error becomes a response. AppExceptions render their own body;
 * framework and middleware errors are mapped to the same shapes; a transient fault of a
 * backend (a lost PostgreSQL connection, a failover, a pool timeout) is 503 with Retry-After,
 * logged at warn with its cause; anything else is a bug: logged with the request id and
 * answered 500 with a generic message.
 */
@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');
  private callerHeaders?: CallerHeaders | null;
  private bodyRenderer?: ErrorRenderer | null;

  constructor(@Optional() private readonly moduleRef?: ModuleRef) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const req = http.getRequest<Request>();
    const error = toAppException(exception);
    if (error instanceof TransientFaultException) {
      this.logger.warn(
        { err: exception, reqId: (req as Request & { id?: unknown }).id, code: error.code, cause: error.transientCause },
        'transient fault: answered 503',
      );
    } else if (error.status >= 500) {
      this.logger.error({ err: exception, reqId: (req as Request & { id?: unknown }).id, code: error.code }, 'request failed');
    }
    if (res.headersSent) return;
    const renderer = this.renderer();
    // The type is set outright: a route's @Header (a CSV download) has already set its own.
    const send = (): void =>
      void res
        .status(renderer?.status?.(error, req) ?? error.status)
        .set(error.headers)
        .type('json')
        .json(renderer ? renderer.body(error, req) : error.body());
    const caller = error.code === CommonErrorCode.RouteNotFound ? this.caller() : null;
    if (caller) void caller.annotate(req, res).then(send, send);
    else send();
  }

  private renderer(): ErrorRenderer | null {
    if (this.bodyRenderer === undefined) {
      try {
        this.bodyRenderer = this.moduleRef?.get<ErrorRenderer>(ERROR_RENDERER, { strict: false }) ?? null;
      } catch {
        this.bodyRenderer = null;
      }
    }
    return this.bodyRenderer;
  }

  private caller(): CallerHeaders | null {
    if (this.callerHeaders === undefined) {
      try {
        this.callerHeaders = this.moduleRef?.get<CallerHeaders>(CALLER_HEADERS, { strict: false }) ?? null;
      } catch {
        this.callerHeaders = null;
      }
    }
    return this.callerHeaders;
  }
}

export function toAppException(exception: unknown): AppException {
  if (exception instanceof AppException) return exception;
  if (exception instanceof HttpException) return fromHttpException(exception);
  const e = exception as HttpErrorLike | undefined;
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return fromMiddlewareError(status, e!);
  const transient = transientCause(exception);
  if (transient !== null) return new TransientFaultException(transient);
  return new AppException(CommonErrorCode.Internal, 500, 'Server Error');
}

function fromMiddlewareError(status: number, e: HttpErrorLike): AppException {
  switch (e.type) {
    case 'entity.parse.failed':
      return new InvalidRequestException('The request body is not valid JSON.', CommonErrorCode.MalformedBody);
    case 'entity.too.large':
      return new AppException(CommonErrorCode.PayloadTooLarge, 413, 'The request body is too large.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppException(CommonErrorCode.UnsupportedMediaType, 415, 'Unsupported request body encoding or charset.');
    default:
      return new AppException(CommonErrorCode.BadRequest, status, e.expose && e.message ? e.message : 'Invalid request.');
  }
}

function fromHttpException(exception: HttpException): AppException {
  const status = exception.getStatus();
  // Nest wraps body-parser's errors; their type says what went wrong.
  const cause = exception.cause as HttpErrorLike | undefined;
  if (typeof cause?.type === 'string' && status < 500) return fromMiddlewareError(status, cause);
  if (status === 404) return new AppException(CommonErrorCode.RouteNotFound, 404, 'Not found.');
  if (status === 405) return new AppException(CommonErrorCode.MethodNotAllowed, 405, 'Method not allowed.');
  const response = exception.getResponse();
  if (status === 503) {
    // Health checks answer 503 with their report; keep it beside the message.
    const report = typeof response === 'object' && response !== null ? (response as Record<string, unknown>) : {};
    return new AppException(CommonErrorCode.Unavailable, 503, 'Service temporarily unavailable.', report);
  }
  if (status >= 500) return new AppException(CommonErrorCode.Internal, status, 'Server Error');
  const message =
    typeof response === 'object' && response !== null && 'message' in response
      ? [(response as { message: unknown }).message].flat().join(' ')
      : exception.message;
  return new AppException(CommonErrorCode.BadRequest, status, message);
}
