import type { Platform } from '../push-payload';
import type { PushMessage, PushProvider, SendOutcome } from './push-provider';

/** Device ids starting with this (any case) answer as unregistered in the sandbox. */
export const SANDBOX_UNREGISTERED_PREFIX = 'unregistered';

/**
 * The default provider, so the service runs with no FCM or APNs account: every push is
 * recorded as delivered, except to a device id starting with `unregistered`, which
 * answers as an unregistered token does (the device is then marked and skipped later).
 */
export class SandboxProvider implements PushProvider {
  readonly name = 'sandbox';

  constructor(readonly platform: Platform) {}

  send(message: PushMessage): Promise<SendOutcome> {
    if (message.device.toLowerCase().startsWith(SANDBOX_UNREGISTERED_PREFIX)) return Promise.resolve({ kind: 'invalid_token', error: 'sandbox: Unregistered' });
    return Promise.resolve({ kind: 'sent', providerId: `sandbox-${message.id}` });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
