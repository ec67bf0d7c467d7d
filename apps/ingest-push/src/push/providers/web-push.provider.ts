import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { parseRetryAfter } from '@app/queue';
import webpush, { WebPushError, type PushSubscription } from 'web-push';
import { webPushPayload } from '../push-payload';
import { networkError, type PushMessage, type PushProvider, type SendOutcome } from './push-provider';

export interface WebPushOptions {
  vapidPublicKey: string;
  vapidPrivateKey: string;
  /** `mailto:` or `https:` contact the push services may use (RFC 8292). */
  vapidSubject: string;
  timeoutMs: number;
  ttlSeconds: number;
  /** Keep-alive connections per push service. */
  connections: number;
  /** Extra CA certificates (PEM) to trust (test push services only). */
  caFile?: string;
}

/** The subscription a `web` item's `nm_push` holds (PushSubscription.toJSON(), as JSON), or null when it is not one. */
export function parseSubscription(device: string): PushSubscription | null {
  try {
    const value = JSON.parse(device) as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
    if (typeof value.endpoint !== 'string' || !/^https:\/\/[^\s]+$/.test(value.endpoint)) return null;
    const { p256dh, auth } = value.keys ?? {};
    if (typeof p256dh !== 'string' || !/^[A-Za-z0-9_-]{86,88}={0,2}$/.test(p256dh)) return null;
    if (typeof auth !== 'string' || !/^[A-Za-z0-9_-]{22,24}={0,2}$/.test(auth)) return null;
    return { endpoint: value.endpoint, keys: { p256dh, auth } };
  } catch {
    return null;
  }
}

/**
 * The Web Push protocol (RFC 8030) through the `web-push` library: the payload encrypted for the
 * subscription's keys (aes128gcm, RFC 8291), a VAPID JWT (RFC 8292) from the settings' key pair,
 * over keep-alive HTTPS connections. 404/410 mean the subscription is gone (invalid token).
 */
export class WebPushProvider implements PushProvider {
  readonly name = 'webpush';
  readonly platform = 'web' as const;
  private readonly agent: Agent;

  constructor(private readonly options: WebPushOptions) {
    this.agent = new Agent({ keepAlive: true, maxSockets: options.connections, ...(options.caFile ? { ca: readFileSync(options.caFile) } : {}) });
    // Checks the key pair and subject now, so a bad setting stops the start rather than every send.
    webpush.getVapidHeaders('https://push.example', options.vapidSubject, options.vapidPublicKey, options.vapidPrivateKey, 'aes128gcm');
  }

  async send(message: PushMessage, deadline?: AbortSignal): Promise<SendOutcome> {
    const subscription = parseSubscription(message.device);
    if (!subscription) return { kind: 'invalid_token', error: 'webpush: not a push subscription' };
    if (deadline?.aborted) return { kind: 'retry', error: 'webpush: timed out', retryAfterSeconds: null };
    try {
      const answer = await untilAborted(
        deadline,
        webpush.sendNotification(subscription, webPushPayload(message, message.openToken ? { pushId: message.id, openToken: message.openToken } : undefined), {
          vapidDetails: { subject: this.options.vapidSubject, publicKey: this.options.vapidPublicKey, privateKey: this.options.vapidPrivateKey },
          TTL: this.options.ttlSeconds,
          contentEncoding: 'aes128gcm',
          urgency: 'high',
          timeout: this.options.timeoutMs,
          agent: this.agent,
        }),
      );
      return { kind: 'sent', providerId: single(answer.headers.location) ?? null };
    } catch (error) {
      if (!(error instanceof WebPushError)) return { kind: 'retry', error: `webpush: ${networkError(error)}`, retryAfterSeconds: null };
      const text = `webpush ${error.statusCode}${error.body ? ` ${error.body.slice(0, 200)}` : ''}`;
      if (error.statusCode === 404 || error.statusCode === 410) return { kind: 'invalid_token', error: text };
      if (error.statusCode === 429 || error.statusCode >= 500)
        return { kind: 'retry', error: text, retryAfterSeconds: parseRetryAfter(single(error.headers['retry-after'])) };
      return { kind: 'failed', error: text };
    }
  }

  close(): Promise<void> {
    this.agent.destroy();
    return Promise.resolve();
  }
}

/** The send, or a timeout error when the job's deadline comes first (web-push takes no abort signal). */
function untilAborted<T>(deadline: AbortSignal | undefined, work: Promise<T>): Promise<T> {
  if (!deadline) return work;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new Error('timed out'));
    deadline.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => deadline.removeEventListener('abort', abort));
  });
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
