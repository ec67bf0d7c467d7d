import { Injectable } from '@nestjs/common';
import type { PhoneContext, SendMessage } from '../network/chat-provider';
import { ConversationsConfig } from './conversations.config';
import { ContactOptedOutException, ServiceWindowClosedException } from './conversation-refusals';
import { ConversationsRepository } from './conversations.repository';

/** Template categories an opted-out contact still receives: one-time codes and transactional updates. */
export const ALLOWED_AFTER_OPT_OUT = ['AUTHENTICATION', 'UTILITY'];

/**
 * The network's rules every send goes through right before the provider is called (MessagesService's
 * one send path, so a send made later, by a worker, is checked when it goes out):
 * - an opted-out contact gets only authentication and utility templates (131050 otherwise);
 * - a message that is not a template needs the contact's service window open (131047), unless
 *   GATEWAY_SERVICE_WINDOW=off.
 * The state is read from PostgreSQL on every send, in one statement: a change made on one replica holds on all at once.
 * The window is read only when it decides (a free-form message, the window enforced); otherwise the opt-out alone.
 */
@Injectable()
export class ConversationRules {
  constructor(
    private readonly config: ConversationsConfig,
    private readonly conversations: ConversationsRepository,
  ) {}

  async check(phone: PhoneContext, message: SendMessage): Promise<void> {
    const waId = waIdOf(message.to);
    const windowed = this.config.GATEWAY_SERVICE_WINDOW === 'enforce' && !message.template;
    const state = windowed
      ? await this.conversations.sendState(phone.phoneRef, phone.accountId, waId, this.config.GATEWAY_SERVICE_WINDOW_SECONDS)
      : { window_open: true, opt_out: await this.conversations.sendOptOut(phone.accountId, waId) };
    const optOut = state.opt_out;
    if (optOut) {
      const reason = optOut.source === 'keyword' ? `sent ${optOut.keyword} at ${optOut.opted_out_at}` : `set through the API at ${optOut.opted_out_at}`;
      if (!message.template) throw new ContactOptedOutException(waId, reason, `a free-form ${message.type} message`);
      const category = await this.conversations.templateCategory(phone.accountId, message.template.name, message.template.language);
      if (!category || !ALLOWED_AFTER_OPT_OUT.includes(category)) {
        throw new ContactOptedOutException(waId, reason, category ? `a ${category} template` : 'a template of a category the gateway does not know');
      }
    }
    if (!state.window_open) throw new ServiceWindowClosedException();
  }

  /** The business marked a customer's message read: it and the contact's earlier ones stop counting as unread. */
  markedRead(phone: PhoneContext, messageId: string): Promise<void> {
    return this.conversations.markRead(phone.phoneRef, messageId);
  }
}

/** The contact's network id for a recipient as sent: its digits (what the network answers as `wa_id`). */
export function waIdOf(to: string): string {
  return to.replace(/\D/g, '');
}
