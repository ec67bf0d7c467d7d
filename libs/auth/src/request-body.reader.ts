import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AppException, CommonErrorCode, ValidationFailedException } from '@app/errors';
import bodyParser from 'body-parser';
import type { Request, Response } from 'express';
import { bodyProblem } from './json-body.check';
import { lossyNumberPath } from './lossy-number';
import { BodyBudget, type BodyReservation, type BudgetCap } from './request-body.budget';
import { RequestBodyConfig } from './request-body.config';
import { BodyDeadlines, type BodyCutReason } from './request-body.deadline';
import type { StreamBodyOptions } from './request-body.decorators';

const RAW = Symbol('rawBody');
type RawCarrier = { [RAW]?: Buffer };

const JSON_TYPES = ['application/json', 'application/*+json'];

/** Retry-After of a body refused for the in-flight budget: fast bodies end within it, stalled ones within BODY_TIMEOUT_SECONDS. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** How a route takes its body: parsed JSON (the default, with a sentence its 413 adds) or the untouched stream. */
export type BodyMode = { kind: 'json'; tooLargeHint?: string } | ({ kind: 'stream' } & StreamBodyOptions);

/** body-parser's error for a body over its limit. */
const TOO_LARGE = 'entity.too.large';

/**
 * Reads request bodies for the guard, after authentication: a JSON route gets its body
 * parsed (within BODY_LIMIT_BYTES) and checked (`bodyProblem`); anything but JSON is 415.
 * A stream route gets the request untouched. Every body read here first takes its bytes
 * from the in-flight budget (BodyBudget, 503 beyond); one that trickles or takes too long
 * (BodyDeadlines) is answered 408 and its connection closed.
 */
@Injectable()
export class RequestBodyReader implements OnModuleDestroy {
  private readonly parseJson: (req: Request, res: Response, next: (error?: unknown) => void) => void;
  readonly deadlines: BodyDeadlines;
  readonly budget: BodyBudget;

  constructor(private readonly config: RequestBodyConfig) {
    this.deadlines = new BodyDeadlines({
      windowMs: config.BODY_TIMEOUT_SECONDS * 1000,
      minBytesPerSecond: config.BODY_MIN_BYTES_PER_SECOND,
      maxMs: config.BODY_MAX_SECONDS * 1000,
    });
    this.budget = new BodyBudget({ processBytes: config.BODY_IN_FLIGHT_BYTES, subjectBytes: config.BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL });
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

  /**
   * Reads the body for `subject` (the credential, or the client address on public routes):
   * it first takes its bytes from the in-flight budget (503 beyond, before a byte is read),
   * then is read under the body watch (408 when it trickles or takes too long).
   */
  async read(req: Request, res: Response, mode: BodyMode, subject: string): Promise<void> {
    if (!this.needsReading(req, mode)) return;
    if (mode.kind === 'json' && !req.is(JSON_TYPES)) {
      throw new AppException(CommonErrorCode.UnsupportedMediaType, 415, 'The request body must be JSON (Content-Type: application/json).');
    }
    const declared = req.headers['content-length'] === undefined ? null : Number(req.headers['content-length']);
    const reserved = this.budget.reserve(subject, declared ?? 0);
    if (typeof reserved === 'string') throw this.busy(reserved);
    // Held until the answer is gone: the parsed body lives as long as the handler runs.
    res.once('close', reserved.release);
    const growing = declared === null ? reserved : null;
    if (mode.kind === 'stream') {
      req.body = await this.whileWatched(req, res, this.readRaw(req, res, mode, growing));
      return;
    }
    // A body that arrived with its headers is not watched (the common small JSON body).
    const parsing = new Promise<void>((resolve, reject) => {
      this.parseJson(req, res, (error) => {
        if ((error as { type?: unknown } | undefined)?.type === TOO_LARGE) reject(this.tooLarge(mode));
        else if (error) reject(error);
        else resolve();
      });
      if (growing) this.countChunks(req, res, growing, reject);
    });
    await this.whileWatched(req, res, parsing);
    const raw = (req as RawCarrier)[RAW];
    // Cleared, not deleted: deleting a property other than the last one added turns the request into a
    // slow dictionary-mode object for the rest of its way through Express, Nest and the logger.
    (req as RawCarrier)[RAW] = undefined;
    const problem = bodyProblem(req.body, this.config.BODY_MAX_JSON_VALUES);
    if (problem?.tooLarge) throw new AppException(CommonErrorCode.PayloadTooLarge, 413, withHint(problem.message, mode));
    if (problem) throw ValidationFailedException.of(problem.path || 'body', problem.message);
    const lossy = raw && lossyNumberPath(raw);
    if (lossy)
      throw ValidationFailedException.of(lossy, 'The number cannot be stored exactly (too many significant digits, or beyond ±1.8e308): send it as a string.');
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

  /** Resolves as `reading` does, or rejects with 408 if the body trickles, stalls or takes too long first. */
  private whileWatched<T>(req: Request, res: Response, reading: Promise<T>): Promise<T> {
    if (req.complete) return reading;
    return new Promise<T>((resolve, reject) => {
      const socket = req.socket;
      const unwatch = this.deadlines.watch({ bytesRead: () => socket.bytesRead, cut: (reason) => reject(this.stalled(res, reason)) });
      reading.then(resolve, reject).finally(unwatch);
    });
  }

  /** A chunked JSON body takes its bytes from the budget as they come; past a cap it is refused and its connection closed. */
  private countChunks(req: Request, res: Response, reserved: BodyReservation, refuse: (error: AppException) => void): void {
    const onData = (chunk: Buffer): void => {
      const cap = reserved.grow(chunk.length);
      if (!cap) return;
      req.off('data', onData);
      res.setHeader('Connection', 'close');
      refuse(this.busy(cap));
    };
    req.on('data', onData);
    req.once('end', () => req.off('data', onData));
  }

  /** The body's exact bytes, up to the route's limit (413 beyond); a chunked one takes its bytes from the budget as they come. */
  private async readRaw(req: Request, res: Response, mode: BodyMode, growing: BodyReservation | null): Promise<Buffer> {
    const limit = mode.kind === 'stream' ? (mode.limit ?? Number.POSITIVE_INFINITY) : this.config.BODY_LIMIT_BYTES;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw this.tooLarge(mode);
      const cap = growing?.grow(chunk.length);
      if (cap) {
        res.setHeader('Connection', 'close');
        throw this.busy(cap);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  /** The 408 for a body that trickled, stalled or took too long; the connection closes after it, as the rest may never come. */
  private stalled(res: Response, reason: BodyCutReason): AppException {
    res.setHeader('Connection', 'close');
    const { BODY_TIMEOUT_SECONDS: window, BODY_MIN_BYTES_PER_SECOND: rate, BODY_MAX_SECONDS: max } = this.config;
    const message =
      reason === 'overtime'
        ? `The request body took longer than ${max} s (BODY_MAX_SECONDS).`
        : `The request body arrived too slowly: it must bring ${rate} bytes per second (BODY_MIN_BYTES_PER_SECOND) over every ${window} s (BODY_TIMEOUT_SECONDS).`;
    return new AppException(CommonErrorCode.RequestTimeout, 408, message);
  }

  /** The 503 for a body beyond the in-flight budget: bodies in flight end or are cut soon, so the client retries. */
  private busy(cap: BudgetCap): AppException {
    const message =
      cap === 'subject'
        ? `This credential already sends ${this.config.BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL} bytes of request bodies at once (BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL); retry when they are done.`
        : `The service already receives ${this.config.BODY_IN_FLIGHT_BYTES} bytes of request bodies at once (BODY_IN_FLIGHT_BYTES); retry shortly.`;
    return new AppException(
      CommonErrorCode.Unavailable,
      503,
      message,
      { retry_after: BUSY_RETRY_AFTER_SECONDS },
      { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
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
