import { createHmac, timingSafeEqual } from 'node:crypto';

/** Length of an open token: base64url of a 256-bit HMAC. */
export const OPEN_TOKEN_LENGTH = 43;

/**
 * The per-push open token: HMAC-SHA256 of the push id under PUSH_OPEN_TOKEN_SECRET, so the app can
 * report an open (POST /api/pushm/opened) with no account credential, for that one push only.
 */
export class OpenTokens {
  constructor(private readonly secret: string) {}

  sign(pushId: string): string {
    return createHmac('sha256', this.secret).update(`push-open:${pushId.toLowerCase()}`).digest('base64url');
  }

  verify(pushId: string, token: string): boolean {
    const expected = Buffer.from(this.sign(pushId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
