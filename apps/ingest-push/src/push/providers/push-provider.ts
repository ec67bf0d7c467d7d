import type { Platform, PushContent } from '../push-payload';

/** One push as a provider sends it. */
export interface PushMessage extends PushContent {
  id: string;
  device: string;
  /** Signed token the app sends back with the id to report an open (carried in the payload). */
  openToken?: string;
}

/**
 * What came of one send. `retry`: network error, timeout, 429 or 5xx (worth another
 * attempt, after `retryAfterSeconds` when the provider said so); `invalid_token`: the device
 * id is unregistered or malformed (final, and the device is marked); `failed`: final.
 */
export type SendOutcome =
  | { kind: 'sent'; providerId: string | null }
  | { kind: 'retry'; error: string; retryAfterSeconds: number | null }
  | { kind: 'invalid_token'; error: string }
  | { kind: 'failed'; error: string };

/** A push service for one platform: FCM, APNs or the sandbox. */
export interface PushProvider {
  readonly name: string;
  readonly platform: Platform;
  /**
   * Sends one push; gives up (a `retry` outcome) when `deadline` aborts, or after the provider's own timeout without one.
   * The send worker passes one deadline to all the sends of a job, its timeout from the claim on.
   */
  send(message: PushMessage, deadline?: AbortSignal): Promise<SendOutcome>;
  close(): Promise<void>;
}

/** Nest token of the providers map (one provider per platform, chosen by the settings). */
export const PUSH_PROVIDERS = Symbol('PUSH_PROVIDERS');
export type PushProviders = Record<Platform, PushProvider>;

/** Describes a thrown network error in one line. */
export function networkError(error: unknown): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  const message = e?.cause?.message ?? e?.message ?? String(error);
  return code ? `${code}: ${message}` : message;
}
