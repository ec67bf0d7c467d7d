import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AppException, CommonErrorCode, ValidationFailedException } from '@app/errors';
import bodyParser from 'body-parser';
import type { Request, Response } from 'express';
import { bodyProblem } from './json-body.check';
import { lossyNumberPath } from './lossy-number';
import { RequestBodyConfig } from './request-body.config';
import { BodyDeadlines } from './request-body.deadline';
import type { StreamBodyOptions } from './request-body.decorators';

const RAW = Symbol('rawBody');
type RawCarrier = { [RAW]?: Buffer };

const JSON_TYPES = ['application/json', 'application/*+json'];

/** How a route takes its body: parsed JSON (the default, with a sentence its 413 adds) or the untouched stream. */
export type BodyMode = { kind: 'json'; tooLargeHint?: string } | ({ kind: 'stream' } & StreamBodyOptions);

/** body-parser's error for a body over its limit. */
const TOO_LARGE = 'entity.too.large';

/**
 * Reads request bodies for the guard, after authentication: a JSON route gets its body
 * parsed (within BODY_LIMIT_BYTES) and checked (`bodyProblem`); anything but JSON is 415.
 * A stream route gets the request untouched. A JSON body that stalls (see BodyDeadlines)
 * is answered 408 and its connection closed.
 */
@Injectable()
export class RequestBodyReader implements OnModuleDestroy {
  private readonly parseJson: (req: Request, res: Response, next: (error?: unknown) => void) => void;
  readonly deadlines: BodyDeadlines;

  constructor(private readonly config: RequestBodyConfig) {
    this.deadlines = new BodyDeadlines({ firstMs: config.BODY_TIMEOUT_SECONDS * 1000, minBytesPerSecond: config.BODY_MIN_BYTES_PER_SECOND });
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

  /** Whether `read` has anything to do: a JSON route and a body with content, or a raw route. */
  needsReading(req: Request, mode: BodyMode): boolean {
    return mode.kind === 'json' ? hasContent(req) : mode.raw === true;
  }

  async read(req: Request, res: Response, mode: BodyMode): Promise<void> {
    if (!this.needsReading(req, mode)) return;
    if (mode.kind === 'stream') {
      req.body = await this.whileWatched(req, res, this.readRaw(req, mode));
      return;
    }
    if (!req.is(JSON_TYPES)) throw new AppException(CommonErrorCode.UnsupportedMediaType, 415, 'The request body must be JSON (Content-Type: application/json).');
    // A body that arrived with its headers is not watched (the common small JSON body).
    const parsing = new Promise<void>((resolve, reject) =>
      this.parseJson(req, res, (error) => {
        if ((error as { type?: unknown } | undefined)?.type === TOO_LARGE) reject(this.tooLarge(mode));
        else if (error) reject(error);
        else resolve();
      }),
    );
    await this.whileWatched(req, res, parsing);
    const raw = (req as RawCarrier)[RAW];
    // Cleared, not deleted: deleting a property other than the last one added turns the request into a
    // slow dictionary-mode object for the rest of its way through Express, Nest and the logger.
    (req as RawCarrier)[RAW] = undefined;
    const problem = bodyProblem(req.body, this.config.BODY_MAX_JSON_VALUES);
    if (problem?.tooLarge) throw new AppException(CommonErrorCode.PayloadTooLarge, 413, withHint(problem.message, mode));
    if (problem) throw ValidationFailedException.of(problem.path || 'body', problem.message);
    const lossy = raw && lossyNumberPath(raw);
    if (lossy) throw ValidationFailedException.of(lossy, 'The number cannot be stored exactly (too many significant digits, or beyond ±1.8e308): send it as a string.');
  }

/** The 413 for a body over the route's byte limit, naming the limit (and the route's hint). */
  tooLarge(mode: BodyMode): AppException {
    const limit = mode.kind === 'json' ? this.config.BODY_LIMIT_BYTES : mode.limit;
    const setting = mode.kind === 'json' ? ' (BODY_LIMIT_BYTES)' : '';
    return new AppException(CommonErrorCode.PayloadTooLarge, 413, withHint(`The request body is over ${limit} bytes${setting}.`, mode));
  }

  onModuleDestroy(): void {
    this.deadlines.stop();
  }

  /** Resolves as `reading` does, or rejects with 408 if the body stalls first. */
  private whileWatched<T>(req: Request, res: Response, reading: Promise<T>): Promise<T> {
    if (req.complete) return reading;
    return new Promise<T>((resolve, reject) => {
      const unwatch = this.deadlines.watch(req, () => reject(this.stalled(res)));
      reading.then(resolve, reject).finally(unwatch);
    });
  }

  /** The body's exact bytes, up to the route's limit; 413 beyond. */
  private async readRaw(req: Request, mode: BodyMode): Promise<Buffer> {
    const limit = mode.kind === 'stream' ? (mode.limit ?? Number.POSITIVE_INFINITY) : this.config.BODY_LIMIT_BYTES;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw this.tooLarge(mode);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  /** The 408 for a stalled body; the connection closes after it, as the rest of the body may never come. */
  private stalled(res: Response): AppException {
    res.setHeader('Connection', 'close');
    const { BODY_TIMEOUT_SECONDS: first, BODY_MIN_BYTES_PER_SECOND: rate } = this.config;
    return new AppException(
      CommonErrorCode.RequestTimeout,
      408,
      `The request body arrived too slowly: it gets ${first} s (BODY_TIMEOUT_SECONDS) plus 1 s per ${rate} bytes received (BODY_MIN_BYTES_PER_SECOND).`,
    );
  }
}

function withHint(message: string, mode: BodyMode): string {
  return mode.kind === 'json' && mode.tooLargeHint ? `${message} ${mode.tooLargeHint}` : message;
}

/** A body with content: chunked, or a Content-Length above 0 (an empty body needs no content type). */
function hasContent(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
}
