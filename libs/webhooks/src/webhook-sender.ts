import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { parseRetryAfter } from '@app/queue';
import { Agent, request } from 'undici';
import { BlockedTargetError, hostOf, type TargetPolicy } from './webhook-target';

export interface AttemptOutcome {
  /** 2xx. */
  ok: boolean;
  /** Worth another attempt: network errors, timeouts, 408, 429 and 5xx. */
  retryable: boolean;
  /** 410 Gone: the receiver asks never to be called again. */
  gone: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
  retryAfterSeconds: number | null;
  /** The first RESPONSE_BODY_BYTES of the response body, for the attempt log. */
  body: string | null;
}

/** How much of a response body the attempt log keeps. */
export const RESPONSE_BODY_BYTES = 1024;
/** How much of it an error message quotes. */
const ERROR_DETAIL_CHARS = 512;

/**
 * POSTs signed payloads over pooled keep-alive connections (undici). Every connection
 * goes through the target policy after DNS resolution; one attempt never takes longer
 * than the timeout, whatever the receiver does; redirects are not followed.
 */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(
    private readonly policy: TargetPolicy,
    private readonly timeoutMs: number,
    trustedCertificates: readonly string[] = [],
  ) {
    // `ca` replaces the default trust store, so extra certificates are added to the system's.
    const ca = trustedCertificates.length > 0 ? [...rootCertificates, ...trustedCertificates] : undefined;
    this.agent = new Agent({
      connect: { lookup: policy.lookup, timeout: timeoutMs, rejectUnauthorized: true, ...(ca && { ca }) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 30_000,
    });
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const target = new URL(url);
      const host = hostOf(target);
      if (isIP(host) && !this.policy.isReachable(host, host)) throw new BlockedTargetError(host);
      if (!this.policy.allowsScheme(target)) throw new BlockedTargetError(host, undefined, 'plain http is not allowed');
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json', 'user-agent': 'webhook-delivery/1', ...headers },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const status = response.statusCode;
      const ok = status >= 200 && status < 300;
      const answer = await readSome(response.body);
      const detail = ok ? '' : answer.slice(0, ERROR_DETAIL_CHARS).replace(/\s+/g, ' ').trim();
      return {
        ok,
        retryable: status === 408 || status === 429 || status >= 500,
        gone: status === 410,
        status,
        durationMs: elapsed(),
        error: ok ? null : `HTTP ${status}${detail ? `: ${detail}` : ''}`,
        retryAfterSeconds: status === 429 || status >= 500 ? parseRetryAfter(response.headers['retry-after']) : null,
        body: answer === '' ? null : answer,
      };
    } catch (error) {
      const blocked = error instanceof BlockedTargetError || (error as { cause?: unknown }).cause instanceof BlockedTargetError;
      return { ok: false, retryable: !blocked, gone: false, status: null, durationMs: elapsed(), error: describe(error), retryAfterSeconds: null, body: null };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

async function readSome(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_BODY_BYTES) break;
    }
  } catch {
    // The body is only a hint for the delivery log.
  } finally {
    // A body read to its end leaves the connection reusable; a longer one is cut off here.
    if (size >= RESPONSE_BODY_BYTES) body.destroy();
  }
  // Cut on a character boundary (a partial UTF-8 sequence at the end is dropped); PostgreSQL text holds no NUL.
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES), { stream: true }).replace(/\0/g, '');
}

function describe(error: unknown): string {
  const e = error as Error & { code?: string; cause?: Error & { code?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'Timed out.';
  const cause = e.cause?.message && e.cause.message !== e.message ? ` (${e.cause.message})` : '';
  return `${e.message}${cause}`.slice(0, 1000);
}
