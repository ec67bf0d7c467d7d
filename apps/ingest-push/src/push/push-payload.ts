/** The two platforms, as stored and as used in queue names. */
export type Platform = 'android' | 'ios';
export const PLATFORMS: readonly Platform[] = ['android', 'ios'];

/** What a provider sends: the item's text after its variables were filled in. */
export interface PushContent {
  title: string;
  body: string;
  /** Opens the app at a given page after the tap; sent in the data/custom payload. */
  urlScheme: string | null;
}

/** Both providers refuse a notification payload over 4 KB. */
export const MAX_PAYLOAD_BYTES = 4096;

/** The APNs payload: the alert, and `url_scheme` as a custom key beside `aps`. */
export function apnsPayload(content: PushContent): string {
  const payload: Record<string, unknown> = { aps: { alert: { title: content.title, body: content.body }, sound: 'default' } };
  if (content.urlScheme !== null) payload.url_scheme = content.urlScheme;
  return JSON.stringify(payload);
}

/** The FCM v1 message for one device: notification, `url_scheme` in data, high priority on Android. */
export function fcmMessage(device: string, content: PushContent): { message: Record<string, unknown> } {
  const message: Record<string, unknown> = {
    token: device,
    notification: { title: content.title, body: content.body },
    android: { priority: 'high' },
  };
  if (content.urlScheme !== null) message.data = { url_scheme: content.urlScheme };
  return { message };
}

/** Bytes of the part of the message the provider counts against its limit (FCM: notification + data). */
export function payloadBytes(platform: Platform, content: PushContent): number {
  if (platform === 'ios') return Buffer.byteLength(apnsPayload(content));
  const { message } = fcmMessage('', content);
  return Buffer.byteLength(JSON.stringify({ notification: message.notification, data: message.data ?? {} }));
}
