/** An event as the outbox holds it, for the service's envelope. */
export interface WebhookEvent {
  /** The same for every webhook the event goes to and every attempt (e.g. the `webhook-id` header). */
  id: string;
  type: string;
  /** ISO 8601. */
  occurredAt: string;
  owner: string;
  data: unknown;
}

/** Signs each attempt. Webhooks of a service with a signer get a secret at creation. */
export interface WebhookSigner {
  generateSecret(): string;
  /** Headers for one attempt, signed by every secret that currently signs (two during a rotation's grace period). */
  sign(secrets: readonly string[], eventId: string, timestamp: number, body: string): Record<string, string>;
}

/** What each service using the engine supplies. */
export interface WebhookEngineOptions {
  /** The exact bytes sent for an event. */
  envelope(event: WebhookEvent): string;
  /** How deliveries are signed; none: no secret, no signature (per-webhook headers can carry a shared token). */
  signer?: WebhookSigner;
  /**
   * Plain http for WEBHOOK_ALLOWED_TARGETS hosts (e.g. a receiver on loopback in development).
   * Otherwise every target must be https, allow-listed or not. Certificates are always verified.
   */
  allowHttpForAllowedTargets?: boolean;
  /**
   * CA certificates (PEM) trusted besides the system's, e.g. a private CA of the receivers
   * (NODE_EXTRA_CA_CERTS does the same process-wide). Certificates are always verified.
   */
  trustedCertificates?: string[];
  /** The request field that names the target URL, in validation errors. Default `url`. */
  urlField?: string;
}

export const WEBHOOK_ENGINE_OPTIONS = Symbol('WEBHOOK_ENGINE_OPTIONS');
