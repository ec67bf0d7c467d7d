import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { TooManyRequestsException } from '@app/errors';
import { HttpAdapterHost } from '@nestjs/core';
import { Metrics, ThrottledWarning } from '@app/observability';
import { DRAINING_EVENT } from '@app/server';
import type { Response } from 'express';
import type { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { Gauge, Histogram } from 'prom-client';
import type { DocstorePrincipal } from '../tokens/docstore-principal';
import { TokensRepository } from '../tokens/tokens.repository';
import { ChangeNotifier } from './change-notifier.service';
import { ChangeStreamCaps, type CappedStream } from './change-stream-caps.service';
import { ChangesConfig } from './changes.config';
import type { ChangeDto } from './changes.dto';
import { ChangesService, type Reader } from './changes.service';

/** Why a stream ends with a final event. */
export type EndReason = 'token_expired' | 'token_revoked' | 'shutdown';

/** Seconds a client told 429 should wait before it tries again. */
const RETRY_AFTER_SECONDS = 5;
/** Milliseconds EventSource waits before it reconnects (the `retry:` field). */
const RECONNECT_MS = 2000;
/** Changes one read of a stream takes at most; the next read waits until the socket drained. */
const STREAM_READ_LIMIT = 100;
/**
 * A client's streams read at most this often: a wake within it waits for its end, so under a stream of
 * writes each read (and each write to a socket) carries several events instead of one.
 */
const WAKE_EVERY_MS = 25;

/** A held reader (event stream or long poll), counted against the caps until released. */
interface Holder extends CappedStream {
  /** Ends it with a final event (a stream) or answers it at once (a long poll). */
  end(reason: EndReason): void;
  /** The token's current scopes, for a stream's later reads. */
  rescope?(scopes: DocstorePrincipal['scopes']): void;
}

/** A client's streams, woken by one notifier listener. */
interface ClientStreams {
  streams: Set<EventStream>;
  unlisten: () => void;
  /** When they last read, and the wake that waits for WAKE_EVERY_MS to pass. */
  lastWake: number;
  pending?: NodeJS.Timeout;
}

/** One event stream: its state only (the service does the work, no closures of its own). */
class EventStream implements Holder {
  open = true;
  /** A read is under way; `again` asks it for one more when it ends. */
  reading = false;
  again = false;

  constructor(
    private readonly owner: ChangeStreams,
    readonly res: Response,
    readonly reader: Reader,
    readonly clientId: string,
    readonly tokenId: string,
    readonly id: string,
  ) {}

  end(reason?: EndReason): void {
    this.owner.finish(this, reason);
  }

  rescope(scopes: DocstorePrincipal['scopes']): void {
    this.owner.rescope(this, scopes);
  }
}

/** The stream of each response, for the one `close` listener every stream shares. */
const streamOf = new WeakMap<Response, EventStream>();
function responseClosed(this: Response): void {
  streamOf.get(this)?.end();
}

/**
 * Resolves when the response's socket drained, or closed. Whichever comes first takes the other's listener
 * away: a stream waits for a drain many times, and a `close` listener left behind each time would pile up.
 */
export function drained(res: EventEmitter): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.once('drain', done).once('close', done);
  });
}

/**
 * The feed's long-lived readers in this replica: event streams and long polls. Caps per client
 * and per token across replicas (ChangeStreamCaps; 429 beyond), one timer for every stream's
 * heartbeat, one for their leases and one statement for every stream's token check, a final event
 * on token expiry, revocation and shutdown, and the metrics. Fan-out: one notifier listener per
 * client wakes its streams; streams at the same cursor share one read, whose events are serialized
 * once into one text that each stream gets in one write, all in the same tick.
 */
@Injectable()
export class ChangeStreams implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly failure = new ThrottledWarning('ChangeStreams');
  private readonly holders = new Set<Holder>();
  private readonly perClient = new Map<string, number>();
  private readonly perToken = new Map<string, number>();
  private readonly streams = new Set<EventStream>();
  private readonly clients = new Map<string, ClientStreams>();
  /** A page's events as bytes, made (and encoded) once however many streams share the read that found it. */
  private readonly texts = new WeakMap<ChangeDto[], Buffer>();
  private readonly lag: Histogram;
  private heartbeat?: NodeJS.Timeout;
  private tokenCheck?: NodeJS.Timeout;
  private leaseRenewal?: NodeJS.Timeout;
  private stopping = false;

  constructor(
    private readonly config: ChangesConfig,
    private readonly changes: ChangesService,
    private readonly notifier: ChangeNotifier,
    private readonly caps: ChangeStreamCaps,
    private readonly tokens: TokensRepository,
    private readonly adapter: HttpAdapterHost,
    metrics: Metrics,
  ) {
    const holders = this.holders;
    const streams = this.streams;
    new Gauge({
      name: 'changes_open_streams',
      help: 'Change-feed readers held open by this process: event streams and long polls.',
      labelNames: ['mode'],
      registers: [metrics.registry],
      collect() {
        this.set({ mode: 'eventstream' }, streams.size);
        this.set({ mode: 'longpoll' }, holders.size - streams.size);
      },
    });
    this.lag = new Histogram({
      name: 'changes_event_lag_seconds',
      help: 'From a change (its transaction start) to its event written to the streams that share the read which found it.',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [metrics.registry],
    });
  }

  onApplicationBootstrap(): void {
    this.heartbeat = setInterval(() => this.beat(), this.config.CHANGES_HEARTBEAT_SECONDS * 1000).unref();
    this.tokenCheck = setInterval(() => void this.checkTokens(), this.config.CHANGES_TOKEN_CHECK_MS).unref();
    this.leaseRenewal = setInterval(() => void this.renewLeases(), this.caps.renewEveryMs).unref();
    // SIGTERM drains the server before the app closes: streams end then, or the drain would wait for them.
    (this.adapter.httpAdapter?.getHttpServer() as Server | undefined)?.on(DRAINING_EVENT, () => this.beforeApplicationShutdown());
  }

  /** Shutdown: every stream gets its final event and every long poll its answer, so clients go elsewhere. */
  beforeApplicationShutdown(): void {
    this.stopping = true;
    clearInterval(this.heartbeat);
    clearInterval(this.tokenCheck);
    clearInterval(this.leaseRenewal);
    for (const holder of [...this.holders]) holder.end('shutdown');
  }

  /** Readers held open now (streams and long polls). */
  get held(): number {
    return this.holders.size;
  }

  /**
   * Counts a reader against the caps, across replicas (429 beyond); `release` frees its place. While
   * Redis is unreachable, each replica counts its own readers against the same caps.
   */
  private async hold(holder: Holder): Promise<void> {
    if (this.stopping) throw new TooManyRequestsException(RETRY_AFTER_SECONDS);
    const client = this.perClient.get(holder.clientId) ?? 0;
    const token = this.perToken.get(holder.tokenId) ?? 0;
    if (client >= this.config.CHANGES_MAX_STREAMS_PER_CLIENT || token >= this.config.CHANGES_MAX_STREAMS_PER_TOKEN) {
      throw new TooManyRequestsException(RETRY_AFTER_SECONDS);
    }
    this.perClient.set(holder.clientId, client + 1);
    this.perToken.set(holder.tokenId, token + 1);
    this.holders.add(holder);
    let taken = true;
    try {
      taken = await this.caps.take(holder);
    } catch (error) {
      this.failure.warn(`counting open streams in Redis (counted in this replica meanwhile): ${(error as Error).message}`);
    }
    if (!taken || this.stopping || !this.holders.has(holder)) {
      this.release(holder);
      throw new TooManyRequestsException(RETRY_AFTER_SECONDS);
    }
  }

  /** Frees a held reader's place (once). */
  private release(holder: Holder): void {
    if (!this.holders.delete(holder)) return;
    decrement(this.perClient, holder.clientId);
    decrement(this.perToken, holder.tokenId);
    this.caps.release(holder);
  }

  /** A long poll, held (and counted) while it waits. */
  async poll(principal: DocstorePrincipal, reader: Reader, timeoutMs: number) {
    const stop = new AbortController();
    const holder: Holder = { clientId: principal.ownerId, tokenId: principal.credentialId, id: this.caps.newId(), end: () => stop.abort() };
    await this.hold(holder);
    try {
      return await this.changes.poll(reader, timeoutMs, stop.signal);
    } finally {
      this.release(holder);
    }
  }

  /**
   * An event stream: `id: <cursor>` and `data: <change>` per change, a comment heartbeat, and a final
   * `end` event. The first page was read (and refused: 410, 422) before the answer started.
   */
  async stream(principal: DocstorePrincipal, reader: Reader, res: Response): Promise<void> {
    reader.limit = Math.min(reader.limit, STREAM_READ_LIMIT);
    const stream = new EventStream(this, res, reader, principal.ownerId, principal.credentialId, this.caps.newId());
    // Listening first: a client that goes away while its place is taken or its first page read frees the place.
    streamOf.set(res, stream);
    res.once('close', responseClosed);
    if (res.destroyed) return;
    await this.hold(stream);
    let first;
    try {
      first = await this.changes.read(reader);
    } catch (error) {
      this.finish(stream);
      throw error;
    }
    if (!stream.open) {
      if (!res.destroyed) res.status(503).json({ message: 'The server is shutting down: connect again.', retry_after: 1 });
      return;
    }
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write(`retry: ${RECONNECT_MS}\n\n`);
    this.streams.add(stream);
    this.join(stream);

    // Wakes meanwhile ask for one more read once the first page is out.
    stream.reading = true;
    stream.again = first.full;
    try {
      if (!this.send(stream, first.page.changes)) await drained(res);
    } finally {
      stream.reading = false;
    }
    if (stream.again) await this.pump(stream);
  }

  /** Ends a stream: a final event for `reason`, none when the client went away. */
  finish(stream: EventStream, reason?: EndReason): void {
    if (!stream.open) return;
    stream.open = false;
    this.leave(stream);
    this.release(stream);
    if (!this.streams.delete(stream)) return; // ended before the answer started: the caller's error answers
    const res = stream.res;
    if (reason && !res.writableEnded) res.write(`event: end\ndata: ${JSON.stringify({ reason, last_cursor: stream.reader.since })}\n\n`);
    res.end();
  }

  /** Applies the token's current scopes to a stream; one that may read nothing any more ends. */
  rescope(stream: EventStream, scopes: DocstorePrincipal['scopes']): void {
    try {
      this.changes.rescope(stream.reader, scopes);
    } catch {
      stream.end('token_revoked');
    }
  }

  private join(stream: EventStream): void {
    let client = this.clients.get(stream.clientId);
    if (!client) {
      const joined: ClientStreams = { streams: new Set(), unlisten: () => undefined, lastWake: 0 };
      joined.unlisten = this.notifier.listen(stream.clientId, () => this.wake(joined));
      this.clients.set(stream.clientId, (client = joined));
    }
    client.streams.add(stream);
  }

  private leave(stream: EventStream): void {
    const client = this.clients.get(stream.clientId);
    if (!client?.streams.delete(stream) || client.streams.size > 0) return;
    client.unlisten();
    clearTimeout(client.pending);
    this.clients.delete(stream.clientId);
  }

  /**
   * A client's feed moved: its streams read now, or once WAKE_EVERY_MS has passed since they last did
   * (one timer per client, none per stream).
   */
  private wake(client: ClientStreams): void {
    if (client.pending) return;
    const wait = client.lastWake + WAKE_EVERY_MS - Date.now();
    if (wait > 0) {
      client.pending = setTimeout(() => {
        client.pending = undefined;
        this.wake(client);
      }, wait);
      return;
    }
    client.lastWake = Date.now();
    this.readAll(client.streams);
  }

  /**
   * Streams at one cursor with one selection read together, once. A stream still busy (reading, or
   * waiting for its socket to drain) reads once more when it is done.
   */
  private readAll(streams: Set<EventStream>): void {
    const together = new Map<string, Map<string | undefined, EventStream[]>>();
    for (const stream of streams) {
      if (stream.reading) {
        stream.again = true;
        continue;
      }
      const shareKey = this.changes.shareKey(stream.reader);
      let atCursor = together.get(shareKey);
      if (!atCursor) together.set(shareKey, (atCursor = new Map()));
      const group = atCursor.get(stream.reader.since);
      if (group) group.push(stream);
      else atCursor.set(stream.reader.since, [stream]);
    }
    for (const atCursor of together.values()) for (const group of atCursor.values()) void this.readTogether(group);
  }

  /** One read for streams at the same cursor: each gets the page in one write, and goes on alone if it has more to read. */
  private async readTogether(group: EventStream[]): Promise<void> {
    for (const stream of group) {
      stream.reading = true;
      stream.again = false;
    }
    const lead = group[0];
    let read;
    try {
      read = await this.changes.read(lead.reader);
    } catch (error) {
      this.failure.warn(`reading the change feed: ${(error as Error).message}`);
      for (const stream of group) stream.reading = false;
      return;
    }
    const { page, full } = read;
    for (const stream of group) {
      stream.reading = false;
      if (!stream.open) continue;
      stream.reader.since = page.last_cursor;
      const written = this.send(stream, page.changes);
      if (!written || full || stream.again) void this.pump(stream, !written);
    }
  }

  /**
   * Reads until the feed has nothing more for the stream (after its socket drained, when `drain`);
   * a wake during a read makes one more.
   */
  private async pump(stream: EventStream, drain = false): Promise<void> {
    if (stream.reading) {
      stream.again = true;
      return;
    }
    stream.reading = true;
    try {
      if (drain) await drained(stream.res);
      stream.again = true;
      while (stream.again && stream.open) {
        stream.again = false;
        const { page, full } = await this.changes.read(stream.reader);
        if (!stream.open) break;
        if (!this.send(stream, page.changes)) await drained(stream.res);
        stream.again ||= full;
      }
    } catch (error) {
      this.failure.warn(`reading the change feed: ${(error as Error).message}`);
      stream.again = false;
    } finally {
      stream.reading = false;
    }
  }

  /** Writes a page's events in one write; false when the socket's buffer is full. */
  private send(stream: EventStream, changes: ChangeDto[]): boolean {
    return changes.length === 0 || stream.res.write(this.text(changes));
  }

  /** A page's events as one UTF-8 text, made (and its changes' lag observed) once per shared read. */
  private text(changes: ChangeDto[]): Buffer {
    let bytes = this.texts.get(changes);
    if (bytes === undefined) {
      const now = Date.now();
      let text = '';
      for (const change of changes) {
        text += `id: ${change.cursor}\nevent: change\ndata: ${JSON.stringify(change)}\n\n`;
        this.lag.observe(Math.max(0, (now - Date.parse(change.occurred_at)) / 1000));
      }
      bytes = Buffer.from(text);
      this.texts.set(changes, bytes);
    }
    return bytes;
  }

  /** One comment per stream; an idle proxy sees traffic. */
  private beat(): void {
    for (const stream of this.streams) stream.res.write(': heartbeat\n\n');
  }

  /** Renews the caps' leases of every held reader, so other replicas keep counting them. */
  private async renewLeases(): Promise<void> {
    if (this.holders.size === 0) return;
    try {
      await this.caps.renew(this.holders);
    } catch (error) {
      this.failure.warn(`renewing the leases of open streams: ${(error as Error).message}`);
    }
  }

  /** The tokens of every held reader, in one statement: gone or disabled ends them, expired too, new scopes apply. */
  private async checkTokens(): Promise<void> {
    if (this.holders.size === 0) return;
    const ids = [...new Set([...this.holders].map((h) => h.tokenId))];
    try {
      const states = new Map((await this.tokens.states(ids)).map((state) => [state.id, state]));
      for (const holder of [...this.holders]) {
        const state = states.get(holder.tokenId);
        if (!state || !state.usable) holder.end(state?.expired ? 'token_expired' : 'token_revoked');
        else holder.rescope?.(state.scopes);
      }
    } catch (error) {
      this.failure.warn(`checking the tokens of open streams: ${(error as Error).message}`);
    }
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 1) - 1;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}
