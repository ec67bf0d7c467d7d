import { parseRetryAfter } from '@app/queue';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import { fcmMessage } from '../push-payload';
import { FcmAccessToken, readServiceAccount } from './fcm-access-token';
import { networkError, type PushMessage, type PushProvider, type SendOutcome } from './push-provider';

export interface FcmOptions {
  baseUrl: string;
  tokenUrl?: string;
  serviceAccountFile: string;
  timeoutMs: number;
  /** Keep-alive connections to FCM (and to the token endpoint). */
  connections: number;
}

/** FCM error codes (`error.details[].errorCode`) that mean the registration token is dead or not this app's. */
const TOKEN_ERRORS = new Set(['UNREGISTERED', 'SENDER_ID_MISMATCH']);

/**
 * FCM HTTP v1: POST {base}/v1/projects/{project}/messages:send with a service-account
 * access token, over pooled keep-alive connections.
 */
export class FcmProvider implements PushProvider {
  readonly name = 'fcm';
  readonly platform = 'android' as const;
  private readonly agent: Agent;
  private readonly token: FcmAccessToken;
  private readonly origin: string;
  private readonly sendPath: string;

  constructor(private readonly options: FcmOptions) {
    const account = readServiceAccount(options.serviceAccountFile);
    this.agent = new Agent({ connections: options.connections, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs, keepAliveTimeout: 30_000 });
    this.token = new FcmAccessToken(account, options.tokenUrl, this.agent, options.timeoutMs);
    const base = new URL(`${options.baseUrl.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`);
    this.origin = base.origin;
    this.sendPath = base.pathname;
  }

  async send(message: PushMessage, deadline?: AbortSignal): Promise<SendOutcome> {
    let accessToken: string;
    try {
      accessToken = await this.token.get();
    } catch (error) {
      return { kind: 'retry', error: `fcm token: ${networkError(error)}`, retryAfterSeconds: null };
    }
    try {
      const response = await post(
        this.agent,
        {
          origin: this.origin,
          path: this.sendPath,
          method: 'POST',
          headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json; charset=UTF-8' },
          body: JSON.stringify(fcmMessage(message.device, message, message.openToken ? { pushId: message.id, openToken: message.openToken } : undefined)),
        },
        deadline ?? AbortSignal.timeout(this.options.timeoutMs),
      );
      const { status, text } = response;
      if (status === 200) return { kind: 'sent', providerId: readName(text) };
      const { code, reason } = readError(text);
      const error = `fcm ${status}${code ? ` ${code}` : ''}${reason ? `: ${reason}` : ''}`;
      if (status === 401) {
        this.token.invalidate(accessToken);
        return { kind: 'retry', error, retryAfterSeconds: 0 };
      }
      if (status === 429 || status >= 500) return { kind: 'retry', error, retryAfterSeconds: parseRetryAfter(response.headers['retry-after']) };
      if (status === 404 || TOKEN_ERRORS.has(code) || (status === 400 && /registration token/i.test(reason))) return { kind: 'invalid_token', error };
      return { kind: 'failed', error };
    } catch (error) {
      return { kind: 'retry', error: `fcm: ${networkError(error)}`, retryAfterSeconds: null };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** Bytes of an answer kept (FCM's answers are small; an error's text is cut to 2,048 characters). */
const MAX_ANSWER_BYTES = 8192;

/**
 * One request on the pool, its answer read whole into a string: a dispatch handler, with no URL
 * parsing, response stream or async resource per send. Ends with `signal`'s reason when it aborts.
 */
function post(agent: Agent, options: Dispatcher.DispatchOptions, signal: AbortSignal): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let controller: Dispatcher.DispatchController | null = null;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onAbort = () => controller?.abort(signal.reason);
    const settle = (error: Error | null) => {
      signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve({ status, headers, text: Buffer.concat(chunks).toString('utf8').slice(0, 2048) });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    agent.dispatch(options, {
      onRequestStart(c) {
        controller = c;
        if (signal.aborted) c.abort(signal.reason);
      },
      onResponseStart(_c, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
      },
      onResponseData(_c, chunk) {
        if (bytes < MAX_ANSWER_BYTES) chunks.push(chunk);
        bytes += chunk.length;
      },
      onResponseEnd: () => settle(null),
      onResponseError: (_c, error) => settle(error),
    });
  });
}

function readName(text: string): string | null {
  try {
    const name = (JSON.parse(text) as { name?: unknown }).name;
    return typeof name === 'string' ? name : null;
  } catch {
    return null;
  }
}

/** FCM's error body: `{error: {status, message, details: [{errorCode}]}}`. */
function readError(text: string): { code: string; reason: string } {
  try {
    const error = (JSON.parse(text) as { error?: { status?: string; message?: string; details?: { errorCode?: string }[] } }).error;
    const detail = error?.details?.find((d) => typeof d?.errorCode === 'string')?.errorCode;
    return { code: detail ?? error?.status ?? '', reason: error?.message ?? '' };
  } catch {
    return { code: '', reason: text.slice(0, 200) };
  }
}
