import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { pipeline, Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { partBytes, partSize, planParts, type Part } from './part-plan';
import { ProgressBar, type ServerStage } from './progress-bar';
import type { UploadOptions } from './upload-args';
import { uploadIdentity, UploadState } from './upload-state';

/** What the tool reports of each part: the service's summary of its ingestion, or that it was skipped. */
export interface PartResult {
  part: number;
  of: number;
  skipped?: 'already confirmed';
  ingestion_id: string;
  received: number;
  inserted: number;
  updated: number;
  rejected: number;
  error_count: number;
  duration_ms: number;
}

export interface UploadTotals {
  received: number;
  inserted: number;
  updated: number;
  rejected: number;
}

/** How a run is steered from outside: Ctrl-C, the pace of asking the service, where progress goes. */
export interface UploadControls {
  /** Aborted on Ctrl-C: the part under way is cancelled on the service too. */
  signal?: AbortSignal;
  /** How often the service is asked for its stage while a part is under way (ms). */
  pollMs?: number;
  err?: NodeJS.WriteStream;
  /** Hears each part's result as soon as it is known (the upload command prints it then, not at the end). */
  onPart?: (result: PartResult) => void;
}

/** The run stopped on Ctrl-C; the message says what became of the part under way. */
export class UploadInterruptedError extends Error {}

type IngestionStatus = 'running' | 'completed' | 'failed' | 'cancelled';
type IngestionSummary = Omit<PartResult, 'part' | 'of' | 'skipped'> & { status: IngestionStatus; stage: ServerStage | null };

interface Answer {
  status: number;
  body: string;
}

interface Request {
  answer: Promise<Answer>;
  /** Drops the connection (after the service was told to cancel). */
  abort(): void;
}

/**
 * Sends the file part after part (see `planParts`). Each part goes under an ingestion id chosen
 * here (X-Ingestion-Id) and written to the state file before it is sent; its outcome is written
 * when the service answers. A part whose outcome is unknown (a crash, a network error) is asked
 * about (GET …/ingestions/{id}) before it is sent again, so a stored part never goes twice. A part
 * that fails on the network, with 408, 429 or 5xx is sent again, up to `retries` times, waiting
 * 1, 2, 4… s; any other answer stops the upload. On `signal` the part under way is cancelled on
 * the service (DELETE …/ingestions/{id}) and the run ends with `UploadInterruptedError`.
 * With `gzip` each part is compressed on its own as it is read and sent (chunked, Content-Encoding:
 * gzip): the parts, their ids and the state file are those of the plain file, so a rerun resumes
 * the same way, with or without `--gzip`.
 */
export async function uploadFile(options: UploadOptions, controls: UploadControls = {}): Promise<{ parts: PartResult[]; totals: UploadTotals }> {
  const { file, url, apiKey, format, maxPartBytes, retries } = options;
  const { signal, pollMs = 1000, err = process.stderr, onPart } = controls;
  const state = new UploadState(options.state, uploadIdentity(options));
  const plan = await planParts(file, format, maxPartBytes);
  const saved = state.savedParts();
  plan.parts = saved ?? plan.parts;
  state.save(plan.parts);
  const of = plan.parts.length;
  const done = plan.parts.filter((part) => part.outcome === 'completed').length;
  if (saved && done > 0) err.write(`resuming: ${done} of ${of} parts done\n`);
  const total = plan.parts.reduce((sum, _part, i) => sum + partSize(plan, i), 0);
  const progress = new ProgressBar(total, format, err);
  const interrupted = new Promise<'interrupted'>((resolve) => {
    if (signal?.aborted) resolve('interrupted');
    signal?.addEventListener('abort', () => resolve('interrupted'), { once: true });
  });
  const results: PartResult[] = [];
  const finished = (result: PartResult) => {
    results.push(result);
    // After the progress line, which may be unfinished on a terminal.
    if (onPart && err.isTTY) err.write('\n');
    onPart?.(result);
  };

  const ask = async (id: string): Promise<IngestionSummary | null> => {
    const got = await send(new URL(`${url}/ingestions/${id}`), 'GET', { apiKey }, null).answer;
    if (got.status === 404) return null;
    if (got.status !== 200) throw new Error(`Asking the service about ingestion ${id} was answered with ${got.status}: ${got.body.slice(0, 500)}`);
    return JSON.parse(got.body) as IngestionSummary;
  };
  const record = (part: Part, changes: Partial<Part>) => {
    Object.assign(part, changes);
    state.save(plan.parts);
  };

  /** The part's summary when the service already stored it; otherwise readies an id to send it under (recorded first). */
  const prepare = async (part: Part): Promise<IngestionSummary | null> => {
    if (part.ingestion_id) {
      let known = await ask(part.ingestion_id);
      // An earlier run's request may still be under way on the service: its outcome decides.
      while (known?.status === 'running' && !signal?.aborted) {
        progress.serverStage(known.stage, known.received);
        await Promise.race([pause(pollMs), interrupted]);
        known = await ask(part.ingestion_id);
      }
      if (known?.status === 'completed') {
        record(part, { outcome: 'completed' });
        return known;
      }
      // Never reached the service: the same id is still free.
      if (known === null && part.outcome === undefined) return null;
    }
    record(part, { ingestion_id: randomUUID(), outcome: undefined });
    return null;
  };

  /** Cancels the part under way on the service, records what became of it, and says so. */
  const interrupt = async (i: number, part: Part, request?: Request): Promise<never> => {
    const id = part.ingestion_id;
    const name = `part ${i + 1} of ${of}`;
    const stored = plan.parts.filter((p) => p.outcome === 'completed').length;
    if (!id || part.outcome !== undefined) {
      request?.abort();
      throw new UploadInterruptedError(`Interrupted before ${name} was sent; ${stored} of ${of} parts are stored. Run the same command again to resume.`);
    }
    const answer = await send(new URL(`${url}/ingestions/${id}`), 'DELETE', { apiKey }, null).answer.catch((error: Error) => ({
      status: 0,
      body: error.message,
    }));
    request?.abort();
    if (answer.status === 202) {
      record(part, { outcome: 'cancelled' });
      throw new UploadInterruptedError(
        `Interrupted: ${name} was cancelled on the service (ingestion ${id}), nothing of it was kept; ${stored} of ${of} parts are stored. Run the same command again to resume.`,
      );
    }
    const ended = answer.status === 409 ? (JSON.parse(answer.body) as { status?: Exclude<IngestionStatus, 'running'> }).status : undefined;
    if (ended === 'completed') {
      record(part, { outcome: 'completed' });
      const rest = stored + 1 === of ? 'the upload is complete' : 'run the same command again to send the rest';
      throw new UploadInterruptedError(
        `Interrupted, but ${name} had already completed on the service (ingestion ${id}) and is recorded as done; ${stored + 1} of ${of} parts are stored, ${rest}.`,
      );
    }
    if (ended) {
      record(part, { outcome: ended });
      throw new UploadInterruptedError(
        `Interrupted: ${name} had already ended ${ended} on the service (ingestion ${id}); ${stored} of ${of} parts are stored. Run the same command again to resume.`,
      );
    }
    if (answer.status === 404) {
      throw new UploadInterruptedError(
        `Interrupted before ${name} reached the service; ${stored} of ${of} parts are stored. Run the same command again to resume.`,
      );
    }
    throw new UploadInterruptedError(
      `Interrupted: cancelling ${name} (ingestion ${id}) was answered with ${answer.status || 'a network error'}: ${answer.body.slice(0, 300)}. Run the same command again: it asks the service what became of it.`,
    );
  };

  for (let i = 0; i < of; i++) {
    const part = plan.parts[i];
    const size = partSize(plan, i);
    const type = format === 'csv' ? 'application/csv' : 'application/json';
    // Compressed, the length is known only at the end: the part goes chunked.
    const headers: Record<string, string> = options.gzip
      ? { apiKey, 'Content-Type': type, 'Content-Encoding': 'gzip' }
      : { apiKey, 'Content-Type': type, 'Content-Length': String(size) };
    let summary: IngestionSummary | null = null;
    for (let attempt = 0; summary === null; attempt++) {
      summary = await prepare(part);
      if (signal?.aborted) return interrupt(i, part);
      if (summary) {
        if (attempt === 0) {
          progress.skip(size);
          finished({ part: i + 1, of, skipped: 'already confirmed', ...pick(summary) });
        }
        break;
      }
      const id = part.ingestion_id!;
      const before = progress.bytes;
      const countRead = (chunk: Buffer) => progress.add(chunk);
      const body = options.gzip ? gzipped(partBytes(file, plan, i), countRead) : partBytes(file, plan, i);
      const request = send(url, 'POST', { ...headers, 'X-Ingestion-Id': id }, body, options.gzip ? undefined : countRead);
      const poll = watchStage(id, pollMs, ask, progress);
      let res: Answer | 'interrupted' | undefined;
      try {
        res = await Promise.race([request.answer, interrupted]);
      } catch (error) {
        if (attempt >= retries) throw error;
        err.write(`\npart ${i + 1}: ${(error as Error).message}, retrying\n`);
      } finally {
        poll.stop();
        progress.serverStage(null);
      }
      if (res === 'interrupted') return interrupt(i, part, request);
      if (res?.status === 201) {
        summary = JSON.parse(res.body) as IngestionSummary;
        record(part, { outcome: 'completed' });
        finished({ part: i + 1, of, ...pick(summary) });
        break;
      }
      if (res) {
        // The id is taken (an earlier attempt reached the service after all): the next attempt asks what became of it.
        const retryable = res.status === 408 || res.status === 429 || res.status >= 500 || /SALES_INGESTION_ID_IN_USE/.test(res.body);
        if (!retryable || attempt >= retries) {
          record(part, { outcome: 'failed' });
          throw new Error(`Part ${i + 1} of ${of} was refused with ${res.status}: ${res.body.slice(0, 500)}`);
        }
        err.write(`\npart ${i + 1}: ${res.status}, retrying\n`);
      }
      progress.undo(progress.bytes - before);
      if ((await Promise.race([pause(1000 * 2 ** attempt), interrupted])) === 'interrupted') return interrupt(i, part);
    }
  }
  progress.done();
  const totals: UploadTotals = { received: 0, inserted: 0, updated: 0, rejected: 0 };
  for (const result of results) for (const key of Object.keys(totals) as Array<keyof UploadTotals>) totals[key] += Number(result[key] || 0);
  return { parts: results, totals };
}

/** Asks the service for its stage every `pollMs` while a part is under way, one question at a time. */
function watchStage(id: string, pollMs: number, ask: (id: string) => Promise<IngestionSummary | null>, progress: ProgressBar): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    const known = await ask(id).catch(() => null);
    if (stopped) return;
    if (known?.status === 'running' && known.stage) progress.serverStage(known.stage, known.received);
    timer = setTimeout(() => void tick(), pollMs);
  };
  timer = setTimeout(() => void tick(), pollMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** The part's bytes gzip-compressed as they are read; `onRead` hears each plain chunk (the progress counts file bytes). */
function gzipped(source: AsyncIterable<Buffer>, onRead: (chunk: Buffer) => void): AsyncIterable<Buffer> {
  const read = async function* () {
    for await (const chunk of source) {
      onRead(chunk);
      yield chunk;
    }
  };
  // A failed read destroys the gzip stream, whose reader (the request) then fails too.
  return pipeline(Readable.from(read()), createGzip(), () => undefined);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function pick(summary: IngestionSummary): Omit<PartResult, 'part' | 'of' | 'skipped'> {
  const { ingestion_id, received, inserted, updated, rejected, error_count, duration_ms } = summary;
  return { ingestion_id, received, inserted, updated, rejected, error_count, duration_ms };
}

function send(url: URL, method: string, headers: Record<string, string>, body: AsyncIterable<Buffer> | null, onChunk?: (chunk: Buffer) => void): Request {
  const client = url.protocol === 'https:' ? https : http;
  let req: http.ClientRequest | undefined;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = client.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode || 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    const sending = req;
    sending.on('error', reject);
    if (!body) {
      sending.end();
      return;
    }
    (async () => {
      for await (const chunk of body) {
        if (sending.destroyed) return;
        onChunk?.(chunk);
        if (!sending.write(chunk)) {
          // Both listeners go once either fires: left behind, one per pause, they pile up on the request.
          await new Promise<void>((resolve) => {
            const done = () => {
              sending.off('drain', done);
              sending.off('close', done);
              resolve();
            };
            sending.on('drain', done);
            sending.on('close', done);
          });
        }
      }
      sending.end();
    })().catch((error: Error) => sending.destroy(error));
  });
  // An aborted request's answer is never awaited: keep its rejection from being unhandled.
  answer.catch(() => undefined);
  return { answer, abort: () => req?.destroy() };
}
