import {
  BadRequestException as NestBadRequest,
  ForbiddenException as NestForbidden,
  HttpException,
  InternalServerErrorException,
  MethodNotAllowedException,
  NotFoundException,
  PayloadTooLargeException,
  ServiceUnavailableException,
} from '@nestjs/common';
import type { ArgumentsHost } from '@nestjs/common';
import { AppException } from './app.exception';
import { AppExceptionFilter, toAppException } from './app-exception.filter';
import { CommonErrorCode, TooManyRequestsException, UnauthenticatedException, ValidationFailedException } from './common.exception';

/** Errors as body-parser creates them (http-errors): status, statusCode, type, expose. */
const bodyParserError = (status: number, type: string, message = 'boom') =>
  Object.assign(new Error(message), { status, statusCode: status, type, expose: true });

describe('toAppException', () => {
  it('keeps AppExceptions as they are', () => {
    const error = ValidationFailedException.of('name', 'The name field is required.');
    expect(toAppException(error)).toBe(error);
    const unauthenticated = new UnauthenticatedException();
    expect(toAppException(unauthenticated).body()).toEqual({ message: 'Unauthenticated.', error: 'Unauthorized' });
  });

  it('maps malformed JSON to 400', () => {
    const error = toAppException(bodyParserError(400, 'entity.parse.failed', 'Unexpected token } in JSON'));
    expect(error.status).toBe(400);
    expect(error.code).toBe(CommonErrorCode.MalformedBody);
    expect(error.body()).toEqual({ message: expect.any(String) });
  });

  it('maps a too large body to 413', () => {
    const error = toAppException(bodyParserError(413, 'entity.too.large'));
    expect(error.status).toBe(413);
    expect(error.body()).toEqual({ message: expect.any(String) });
  });

  it('maps unsupported encodings to 415', () => {
    expect(toAppException(bodyParserError(415, 'encoding.unsupported')).status).toBe(415);
    expect(toAppException(bodyParserError(415, 'charset.unsupported')).status).toBe(415);
  });

  it('keeps the status of other client errors from middleware', () => {
    const error = toAppException(bodyParserError(400, 'request.aborted', 'request aborted'));
    expect(error.status).toBe(400);
    expect(error.body()).toEqual({ message: 'request aborted' });
    expect(toAppException(Object.assign(new Error('secret detail'), { status: 400 })).body()).toEqual({ message: 'Invalid request.' });
  });

  it('answers anything else with 500 Server Error, hiding the detail', () => {
    for (const thrown of [
      new Error('db password is hunter2'),
      new TypeError('x is undefined'),
      'a string',
      undefined,
      null,
      { status: 500 },
      { status: 302 },
    ]) {
      const error = toAppException(thrown);
      expect(error.status).toBe(500);
      expect(error.body()).toEqual({ message: 'Server Error' });
    }
  });

  it('maps Nest HTTP exceptions', () => {
    expect(toAppException(new NotFoundException('Cannot GET /nope')).status).toBe(404);
    expect(toAppException(new NotFoundException('Cannot GET /nope')).body()).toEqual({ message: 'Not found.' });
    expect(toAppException(new MethodNotAllowedException()).status).toBe(405);
    expect(toAppException(new NestForbidden('nope')).body()).toEqual({ message: 'nope' });
    expect(toAppException(new NestBadRequest(['a is bad', 'b is bad'])).body()).toEqual({ message: 'a is bad b is bad' });
    expect(toAppException(new InternalServerErrorException('stack detail')).body()).toEqual({ message: 'Server Error' });
  });

  it('maps a Nest exception wrapping a body-parser error by its cause', () => {
    const wrapped = new PayloadTooLargeException('too big', { cause: bodyParserError(413, 'entity.too.large') });
    expect(toAppException(wrapped).code).toBe(CommonErrorCode.PayloadTooLarge);
    const parse = new HttpException('bad', 400, { cause: bodyParserError(400, 'entity.parse.failed') });
    expect(toAppException(parse).code).toBe(CommonErrorCode.MalformedBody);
  });

  it('keeps a 503 report beside the message', () => {
    const error = toAppException(new ServiceUnavailableException({ status: 'error', details: { database: 'down' } }));
    expect(error.status).toBe(503);
    expect(error.body()).toMatchObject({ message: expect.any(String), details: { database: 'down' } });
  });
});

describe('AppExceptionFilter', () => {
  function host(headersSent = false) {
    const res = { headersSent, status: jest.fn(), set: jest.fn(), type: jest.fn(), json: jest.fn() };
    res.status.mockReturnValue(res);
    res.set.mockReturnValue(res);
    res.type.mockReturnValue(res);
    const http = { getResponse: () => res, getRequest: () => ({ id: 'req-1' }) };
    return { res, host: { switchToHttp: () => http } as unknown as ArgumentsHost };
  }

  it('writes status, headers and body', () => {
    const { res, host: h } = host();
    new AppExceptionFilter().catch(new TooManyRequestsException(2.2), h);
    expect(res.status).toHaveBeenCalledWith(429);
    expect(res.set).toHaveBeenCalledWith({ 'Retry-After': '3' });
    // JSON even where the route declared another type for its success (a CSV download).
    expect(res.type).toHaveBeenCalledWith('json');
    expect(res.json).toHaveBeenCalledWith({ message: expect.any(String), retry_after: 3 });
  });

  it('answers 500 for unexpected errors', () => {
    const { res, host: h } = host();
    const filter = new AppExceptionFilter();
    jest.spyOn((filter as unknown as { logger: { error: () => void } }).logger, 'error').mockImplementation(() => undefined);
    filter.catch(new Error('kaboom'), h);
    expect(res.status).toHaveBeenCalledWith(500);
    expect(res.json).toHaveBeenCalledWith({ message: 'Server Error' });
  });

  it('logs a transient fault at warn with its cause, not as an error, and answers 503', () => {
    const { res, host: h } = host();
    const filter = new AppExceptionFilter();
    const logger = (filter as unknown as { logger: { error: () => void; warn: () => void } }).logger;
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    filter.catch(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }), h);
    expect(res.status).toHaveBeenCalledWith(503);
    expect(res.set).toHaveBeenCalledWith({ 'Retry-After': '5' });
    expect(error).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ cause: '57P01 terminating connection due to administrator command', reqId: 'req-1' }),
      expect.any(String),
    );
  });

  it('leaves a response that is already sent alone', () => {
    const { res, host: h } = host(true);
    new AppExceptionFilter().catch(new AppException('X', 400, 'late'), h);
    expect(res.status).not.toHaveBeenCalled();
    expect(res.json).not.toHaveBeenCalled();
  });
});
