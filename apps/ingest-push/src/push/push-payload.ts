/** The platforms, as stored and as used in queue names (`web`: browsers, through the Web Push protocol). */
export type Platform = 'android' | 'ios' | 'web';
export const PLATFORMS: readonly Platform[] = ['android', 'ios', 'web'];

/** What a provider sends: the item's text after its variables were filled in. */
export interface PushContent {
  title: string;
  body: string;
  /** Opens the app at a given page after the tap; sent in the data/custom payload. */
  urlScheme: string | null;
}

/** What the app reads from a push to report its open: the push id and its signed open token. */
export interface OpenKeys {
  pushId: string;
  openToken: string;
}

/** Stand-ins of the same length as real open keys, to measure a payload before the push has an id. */
export const SAMPLE_OPEN_KEYS: OpenKeys = { pushId: '00000000-0000-0000-0000-000000000000', openToken: 'x'.repeat(43) };

/** Both providers refuse a notification payload over 4 KB. */
export const MAX_PAYLOAD_BYTES = 4096;

/** The APNs payload: the alert; `url_scheme`, `push_id` and `open_token` as custom keys beside `aps`. */
export function apnsPayload(content: PushContent, open?: OpenKeys): string {
  const payload: Record<string, unknown> = { aps: { alert: { title: content.title, body: content.body }, sound: 'default' } };
  if (content.urlScheme !== null) payload.url_scheme = content.urlScheme;
  if (open) Object.assign(payload, { push_id: open.pushId, open_token: open.openToken });
  return JSON.stringify(payload);
}

/** The FCM v1 message for one device: notification, `url_scheme`, `push_id` and `open_token` in data, high priority on Android. */
export function fcmMessage(device: string, content: PushContent, open?: OpenKeys): { message: Record<string, unknown> } {
  const message: Record<string, unknown> = {
    token: device,
    notification: { title: content.title, body: content.body },
    android: { priority: 'high' },
  };
  const data: Record<string, string> = {};
  if (content.urlScheme !== null) data.url_scheme = content.urlScheme;
  if (open) Object.assign(data, { push_id: open.pushId, open_token: open.openToken });
  if (Object.keys(data).length > 0) message.data = data;
  return { message };
}

/** The Web Push payload (encrypted for the subscription; the service worker reads it): one JSON object. */
export function webPushPayload(content: PushContent, open?: OpenKeys): string {
  const payload: Record<string, unknown> = { title: content.title, body: content.body };
  if (content.urlScheme !== null) payload.url_scheme = content.urlScheme;
  if (open) Object.assign(payload, { push_id: open.pushId, open_token: open.openToken });
  return JSON.stringify(payload);
}

/** Bytes of the part of the message the provider counts against its limit (FCM: notification + data), open keys included. */
export function payloadBytes(platform: Platform, content: PushContent): number {
  if (platform === 'ios') return Buffer.byteLength(apnsPayload(content, SAMPLE_OPEN_KEYS));
  if (platform === 'web') return Buffer.byteLength(webPushPayload(content, SAMPLE_OPEN_KEYS));
  const { message } = fcmMessage('', content, SAMPLE_OPEN_KEYS);
  return Buffer.byteLength(JSON.stringify({ notification: message.notification, data: message.data ?? {} }));
}
