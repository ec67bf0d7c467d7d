import { parseRetryAfter } from '@app/queue';
import { Agent, request } from 'undici';
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
  private readonly sendUrl: string;

  constructor(private readonly options: FcmOptions) {
    const account = readServiceAccount(options.serviceAccountFile);
    this.agent = new Agent({ connections: options.connections, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs, keepAliveTimeout: 30_000 });
    this.token = new FcmAccessToken(account, options.tokenUrl, this.agent, options.timeoutMs);
    this.sendUrl = `${options.baseUrl.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`;
  }

  async send(message: PushMessage): Promise<SendOutcome> {
    let accessToken: string;
    try {
      accessToken = await this.token.get();
    } catch (error) {
      return { kind: 'retry', error: `fcm token: ${networkError(error)}`, retryAfterSeconds: null };
    }
    try {
      const response = await request(this.sendUrl, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json; charset=UTF-8' },
        body: JSON.stringify(fcmMessage(message.device, message)),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const status = response.statusCode;
      const text = (await response.body.text()).slice(0, 2048);
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
