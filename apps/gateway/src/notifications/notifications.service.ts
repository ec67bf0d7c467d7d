import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { ConversationInbox } from '../conversations/conversation-inbox.service';
import { NetworkConfig } from '../network/network.config';
import { MessagesRepository } from '../messages/messages.repository';
import type { PhoneContext } from '../network/chat-provider';
import type { NetworkEvents, StatusChange, StatusOutcome } from '../network/network-events';
import { notification, statusesValue, templateStatusValue } from '../network/network-notification';
import { TemplatesRepository } from '../templates/templates.repository';
import { NetworkNotificationOutbox } from '../webhooks/network-notification.outbox';
import { MESSAGES_FIELD, TEMPLATE_STATUS_FIELD } from './inbound-notification.validator';
import { InboundRepository } from './inbound.repository';

/**
 * Every change the network reports (or the sandbox plays), recorded once and handed to
 * the phone's webhooks in the network's own notification shape, in one transaction.
 */
@Injectable()
export class NotificationsService implements NetworkEvents {
  constructor(
    private readonly sql: Sql,
    private readonly config: NetworkConfig,
    private readonly messages: MessagesRepository,
    private readonly templates: TemplatesRepository,
    private readonly inbound: InboundRepository,
    private readonly outbox: NetworkNotificationOutbox,
    private readonly inbox: ConversationInbox,
  ) {}

  /** A status of a message `phone` sent; a repeated one, or one for another phone's message, changes nothing. */
  async messageStatus(phone: PhoneContext, change: StatusChange): Promise<StatusOutcome> {
    const { outcome, deliveries } = await this.sql.transaction(async (tx) => {
      const recorded = await this.messages.recordStatus(tx, phone.phoneRef, change);
      if (!recorded) return { outcome: 'unknown' as const, deliveries: 0 };
      if (!recorded.fresh) return { outcome: 'repeated' as const, deliveries: 0 };
      const status = {
        id: change.messageId,
        status: change.status,
        timestamp: String(change.timestamp),
        recipient_id: recorded.recipient,
        ...(change.conversation ? { conversation: change.conversation } : {}),
        ...(change.pricing ? { pricing: change.pricing } : {}),
        ...(change.errors ? { errors: change.errors } : {}),
      };
      return {
        outcome: 'recorded' as const,
        deliveries: await this.outbox.record(
          tx,
          phone.phoneRef,
          MESSAGES_FIELD,
          notification(phone, MESSAGES_FIELD, statusesValue(this.config.NETWORK, phone, [status])),
        ),
      };
    });
    this.outbox.recorded(deliveries);
    return outcome;
  }

  /** A template's review result. */
  async templateStatus(phone: PhoneContext, templateId: string, event: string, reason: string | null): Promise<void> {
    const deliveries = await this.sql.transaction(async (tx) => {
      const template = await this.templates.setStatus(tx, phone.accountId, templateId, event, reason);
      if (!template) return 0;
      return this.outbox.record(
        tx,
        phone.phoneRef,
        TEMPLATE_STATUS_FIELD,
        notification(phone, TEMPLATE_STATUS_FIELD, templateStatusValue(template, event, reason)),
      );
    });
    this.outbox.recorded(deliveries);
  }

  /**
   * Customers' messages (the network's, or the sandbox's customer): each message id taken once, stored in its
   * conversation (keywords applied), then forwarded as the network sent them.
   */
  async inboundMessages(phone: PhoneContext, value: Record<string, unknown> & { messages: { id: string }[] }): Promise<void> {
    const deliveries = await this.sql.transaction(async (tx) => {
      const fresh = await this.inbound.takeNew(
        tx,
        value.messages.map((m) => `message:${m.id}`),
      );
      const messages = value.messages.filter((m) => fresh.has(`message:${m.id}`));
      if (messages.length === 0) return 0;
      const forwarded = await this.outbox.record(tx, phone.phoneRef, MESSAGES_FIELD, notification(phone, MESSAGES_FIELD, { ...value, messages }));
      return forwarded + (await this.inbox.record(tx, phone, messages, value.contacts));
    });
    this.outbox.recorded(deliveries);
  }

  /** Any other change (account updates, quality...): forwarded once per identical body. */
  async otherChange(phone: PhoneContext, field: string, value: unknown, dedupKey: string): Promise<void> {
    const deliveries = await this.sql.transaction(async (tx) => {
      const fresh = await this.inbound.takeNew(tx, [dedupKey]);
      if (fresh.size === 0) return 0;
      return this.outbox.record(tx, phone.phoneRef, field, notification(phone, field, value));
    });
    this.outbox.recorded(deliveries);
  }
}
