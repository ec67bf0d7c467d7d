import { Injectable } from '@nestjs/common';
import { AppException, CommonErrorCode, ValidationFailedException } from '@app/errors';
import bodyParser from 'body-parser';
import type { Request, Response } from 'express';
import { bodyProblem } from './json-body.check';
import { lossyNumberPath } from './lossy-number';
import { RequestBodyConfig } from './request-body.config';
import type { StreamBodyOptions } from './request-body.decorators';

const RAW = Symbol('rawBody');
type RawCarrier = { [RAW]?: Buffer };

const JSON_TYPES = ['application/json', 'application/*+json'];

/** How a route takes its body: parsed JSON (the default) or the untouched stream. */
export type BodyMode = { kind: 'json' } | ({ kind: 'stream' } & StreamBodyOptions);

/**
 * Reads request bodies for the guard, after authentication: a JSON route gets its body
 * parsed (within BODY_LIMIT_BYTES) and checked (`bodyProblem`); anything but JSON is 415.
 * A stream route gets the request untouched.
 */
@Injectable()
export class RequestBodyReader {
  private readonly parseJson: (req: Request, res: Response, next: (error?: unknown) => void) => void;

  constructor(private readonly config: RequestBodyConfig) {
    this.parseJson = bodyParser.json({
      limit: config.BODY_LIMIT_BYTES,
      type: () => true,
      verify: (req, _res, raw) => void ((req as RawCarrier)[RAW] = raw),
    });
  }

  /** True when the declared Content-Length is over the route's limit: answerable without reading anything. */
  declaredTooLarge(req: Request, mode: BodyMode): boolean {
    const limit = mode.kind === 'json' ? this.config.BODY_LIMIT_BYTES : mode.limit;
    const length = Number(req.headers['content-length']);
    return limit !== undefined && Number.isFinite(length) && length > limit;
  }

  /** Whether `read` has anything to do: a JSON route and a body with content. */
  needsReading(req: Request, mode: BodyMode): boolean {
    return mode.kind === 'json' && hasContent(req);
  }

  async read(req: Request, res: Response, mode: BodyMode): Promise<void> {
    if (!this.needsReading(req, mode)) return;
    if (!req.is(JSON_TYPES)) throw new AppException(CommonErrorCode.UnsupportedMediaType, 415, 'The request body must be JSON (Content-Type: application/json).');
    await new Promise<void>((resolve, reject) => this.parseJson(req, res, (error) => (error ? reject(error) : resolve())));
    const raw = (req as RawCarrier)[RAW];
    // Cleared, not deleted: deleting a property other than the last one added turns the request into a
    // slow dictionary-mode object for the rest of its way through Express, Nest and the logger.
    (req as RawCarrier)[RAW] = undefined;
    const problem = bodyProblem(req.body, this.config.BODY_MAX_JSON_VALUES);
    if (problem?.tooLarge) throw new AppException(CommonErrorCode.PayloadTooLarge, 413, problem.message);
    if (problem) throw ValidationFailedException.of(problem.path || 'body', problem.message);
    const lossy = raw && lossyNumberPath(raw);
    if (lossy) throw ValidationFailedException.of(lossy, 'The number cannot be stored exactly (too many significant digits, or beyond ±1.8e308): send it as a string.');
  }
}

/** A body with content: chunked, or a Content-Length above 0 (an empty body needs no content type). */
function hasContent(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
}

/** Thrown by a caller that finds the declared body too large before reading it. */
export function payloadTooLarge(): AppException {
  return new AppException(CommonErrorCode.PayloadTooLarge, 413, 'The request body is too large.');
}
