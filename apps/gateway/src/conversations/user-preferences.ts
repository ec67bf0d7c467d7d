import type { PhoneContext } from '../network/chat-provider';

/** The network's notification type for a contact stopping or resuming marketing messages; the gateway sends it for opt-outs and opt-ins. */
export const USER_PREFERENCES_FIELD = 'user_preferences';

/** A `user_preferences` change as the network shapes it: `value` is `stop` (opted out) or `resume` (opted in). */
export function userPreferencesValue(
  network: string,
  phone: PhoneContext,
  change: { waId: string; profileName: string | null; value: 'stop' | 'resume'; detail: string },
): Record<string, unknown> {
  return {
    messaging_product: network,
    metadata: { display_phone_number: phone.phone, phone_number_id: phone.phoneId },
    contacts: [{ profile: { name: change.profileName ?? '' }, wa_id: change.waId }],
    user_preferences: [
      { wa_id: change.waId, detail: change.detail, category: 'marketing_messages', value: change.value, timestamp: Math.floor(Date.now() / 1000) },
    ],
  };
}
