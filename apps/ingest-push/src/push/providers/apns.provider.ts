import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { parseRetryAfter } from '@app/queue';
import { apnsPayload } from '../push-payload';
import { base64url } from './fcm-access-token';
import { networkError, type PushMessage, type PushProvider, type SendOutcome } from './push-provider';

export interface ApnsOptions {
  baseUrl: string;
  keyFile: string;
  keyId: string;
  teamId: string;
  topic: string;
  timeoutMs: number;
  /** Extra CA certificates (PEM) to trust, e.g. a test CA; APNs itself needs none. */
  caFile?: string;
  /** How long APNs keeps trying an offline device, in seconds. */
  expirationSeconds: number;
}

/** APNs wants a new provider token at most every 20 minutes and refuses one older than an hour. */
const TOKEN_LIFETIME_MS = 50 * 60_000;
/** Reasons that mean the device token is unregistered or malformed. */
const TOKEN_REASONS = new Set(['BadDeviceToken', 'Unregistered', 'DeviceTokenNotForTopic', 'ExpiredToken']);
const PROVIDER_TOKEN_REASONS = new Set(['ExpiredProviderToken', 'InvalidProviderToken', 'MissingProviderToken']);

/**
 * APNs over HTTP/2 (node:http2: one multiplexed connection, reopened when it closes) with
 * token auth: an ES256 JWT from the .p8 key, renewed every 50 minutes.
 */
export class ApnsProvider implements PushProvider {
  readonly name = 'apns';
  readonly platform = 'ios' as const;
  private readonly key: KeyObject;
  private readonly ca?: Buffer;
  private session: ClientHttp2Session | null = null;
  private jwt: { token: string; renewAt: number } | null = null;

  constructor(private readonly options: ApnsOptions) {
    try {
      this.key = createPrivateKey(readFileSync(options.keyFile));
    } catch (error) {
      throw new Error(`APNS_KEY_FILE ${options.keyFile} is not a readable .p8 key: ${(error as Error).message}`);
    }
    if (options.caFile) this.ca = readFileSync(options.caFile);
  }

  async send(message: PushMessage, deadline?: AbortSignal): Promise<SendOutcome> {
    const token = this.providerToken();
    try {
      const { status, headers, body } = await this.post(
        `/3/device/${encodeURIComponent(message.device)}`,
        {
          authorization: `bearer ${token}`,
          'apns-topic': this.options.topic,
          'apns-push-type': 'alert',
          'apns-priority': '10',
          'apns-expiration': String(Math.floor(Date.now() / 1000) + this.options.expirationSeconds),
          'apns-id': message.id,
          'content-type': 'application/json',
        },
        apnsPayload(message, message.openToken ? { pushId: message.id, openToken: message.openToken } : undefined),
        deadline,
      );
      if (status === 200) return { kind: 'sent', providerId: single(headers['apns-id']) ?? null };
      const reason = readReason(body);
      const error = `apns ${status}${reason ? ` ${reason}` : ''}`;
      if (status === 410 || TOKEN_REASONS.has(reason)) return { kind: 'invalid_token', error };
      if (status === 403 && PROVIDER_TOKEN_REASONS.has(reason)) {
        if (this.jwt?.token === token) this.jwt = null;
        return { kind: 'retry', error, retryAfterSeconds: 0 };
      }
      if (status === 429 || status >= 500) return { kind: 'retry', error, retryAfterSeconds: parseRetryAfter(single(headers['retry-after'])) };
      return { kind: 'failed', error };
    } catch (error) {
      return { kind: 'retry', error: `apns: ${networkError(error)}`, retryAfterSeconds: null };
    }
  }

  async close(): Promise<void> {
    const session = this.session;
    this.session = null;
    if (session && !session.closed) await new Promise<void>((resolve) => session.close(() => resolve()));
  }

  private providerToken(): string {
    if (this.jwt && Date.now() < this.jwt.renewAt) return this.jwt.token;
    const header = base64url(JSON.stringify({ alg: 'ES256', kid: this.options.keyId }));
    const claims = base64url(JSON.stringify({ iss: this.options.teamId, iat: Math.floor(Date.now() / 1000) }));
    const signature = sign('sha256', Buffer.from(`${header}.${claims}`), { key: this.key, dsaEncoding: 'ieee-p1363' });
    this.jwt = { token: `${header}.${claims}.${signature.toString('base64url')}`, renewAt: Date.now() + TOKEN_LIFETIME_MS };
    return this.jwt.token;
  }

  private connection(): ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const session = connect(this.options.baseUrl, this.ca ? { ca: this.ca } : {});
    const forget = () => {
      if (this.session === session) this.session = null;
    };
    session.on('error', forget);
    session.on('goaway', forget);
    session.on('close', forget);
    session.unref();
    this.session = session;
    return session;
  }

  private post(
    path: string,
    headers: Record<string, string>,
    body: string,
    deadline?: AbortSignal,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
    return new Promise((resolve, reject) => {
      if (deadline?.aborted) return reject(new Error('timed out'));
      const stream = this.connection().request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: path, ...headers });
      const cancel = () => stream.close(constants.NGHTTP2_CANCEL);
      stream.setTimeout(this.options.timeoutMs, cancel);
      if (deadline) {
        deadline.addEventListener('abort', cancel, { once: true });
        stream.once('close', () => deadline.removeEventListener('abort', cancel));
      }
      let status = 0;
      let responseHeaders: Record<string, string | string[] | undefined> = {};
      const chunks: Buffer[] = [];
      stream.on('response', (h) => {
        status = Number(h[constants.HTTP2_HEADER_STATUS]);
        responseHeaders = h as Record<string, string | string[] | undefined>;
      });
      stream.on('data', (chunk: Buffer) => chunks.length < 16 && chunks.push(chunk));
      stream.on('end', () =>
        status
          ? resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks).toString('utf8') })
          : reject(new Error('stream ended without a response')),
      );
      stream.on(
        'close',
        () => status === 0 && reject(new Error(stream.rstCode === constants.NGHTTP2_CANCEL ? 'timed out' : `stream closed (code ${stream.rstCode})`)),
      );
      stream.on('error', reject);
      stream.end(body);
    });
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function readReason(body: string): string {
  try {
    const reason = (JSON.parse(body) as { reason?: unknown }).reason;
    return typeof reason === 'string' ? reason : '';
  } catch {
    return '';
  }
}
