import type { PhoneContext } from './chat-provider';
import type { StatusConversation, StatusPricing } from './network-events';

/** The network's notification body: `{object, entry: [{id, changes: [{field, value}]}]}`. */
export interface NetworkNotification {
  object: 'whatsapp_business_account';
  entry: { id: string; time?: number; changes: { field: string; value: unknown }[] }[];
}

export function notification(phone: PhoneContext, field: string, value: unknown): NetworkNotification {
  return { object: 'whatsapp_business_account', entry: [{ id: phone.wabaId ?? phone.phoneId, changes: [{ field, value }] }] };
}

export interface StatusValue {
  id: string;
  status: string;
  timestamp: string;
  recipient_id: string;
  conversation?: StatusConversation;
  pricing?: StatusPricing;
  errors?: unknown[];
}

/** A `messages` change carrying statuses, as the network sends it. */
export function statusesValue(network: string, phone: PhoneContext, statuses: StatusValue[]): Record<string, unknown> {
  return { messaging_product: network, metadata: { display_phone_number: phone.phone, phone_number_id: phone.phoneId }, statuses };
}

/** A `message_template_status_update` change. */
export function templateStatusValue(template: { id: string; name: string; language: string }, event: string, reason: string | null): Record<string, unknown> {
  return {
    event,
    message_template_id: template.id,
    message_template_name: template.name,
    message_template_language: template.language,
    reason: reason ?? 'NONE',
  };
}
