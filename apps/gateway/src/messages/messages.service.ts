import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { PhonesService } from '../accounts/phones.service';
import { ConversationRules } from '../conversations/conversation-rules.service';
import { cursorPage, keyCursor, keyOf, type CursorPage, type CursorPaging } from '../common/cursor-page';
import type { SuccessAnswer } from '../common/cursor-page.dto';
import { NetworkConfig } from '../network/network.config';
import { MessagesConfig } from './messages.config';
import {
  GatewayErrorCode,
  InvalidParameterException,
  NetworkErrorCode,
  NetworkErrorException,
  ResourceNotFoundException,
} from '../errors/network-error.exception';
import { CHAT_PROVIDER, type ChatProvider, type PhoneContext, type SendMessage } from '../network/chat-provider';
import { IdempotencyRepository } from './idempotency.repository';
import { messageRequest, type SendMessageBody } from './message.dto';
import { messageFilter, STATS_WINDOWS, type MessageListQuery, type StatsQuery } from './message-query.dto';
import type { MessageStats, MessageSummary, MessageView, SendMessageAnswer } from './message-answers.dto';
import { MessagesRepository } from './messages.repository';
import { NotScheduledException, ScheduledMessagesService, scheduledView } from './scheduled-messages.service';
import { ThroughputLimiter } from './throughput.limiter';

/** Every bucket names these, 0 when none; other statuses appear where they occur. */
const CHARTED_STATUSES = ['accepted', 'sent', 'delivered', 'read', 'failed'];
const HOUR_MS = 3_600_000;

@Injectable()
export class MessagesService {
  private readonly logger = new Logger(MessagesService.name);

  constructor(
    private readonly network: NetworkConfig,
    private readonly config: MessagesConfig,
    private readonly messages: MessagesRepository,
    private readonly idempotency: IdempotencyRepository,
    private readonly throughput: ThroughputLimiter,
    private readonly phones: PhonesService,
    private readonly scheduled: ScheduledMessagesService,
    private readonly rules: ConversationRules,
    @Inject(CHAT_PROVIDER) private readonly provider: ChatProvider,
  ) {}

  /** Sends a message or marks one read. With an Idempotency-Key, a repeated request gets the first answer and sends nothing. */
  async post(phone: PhoneContext, body: SendMessageBody, idempotencyKey: string | undefined): Promise<SendMessageAnswer | SuccessAnswer> {
    const request = messageRequest(body);
    if (request.kind === 'read') {
      // A read mark is no message: the network takes it whatever the window (for a message of the last 30 days).
      await this.provider.markRead(phone, request.messageId);
      await this.rules.markedRead(phone, request.messageId);
      return { success: true };
    }
    if (request.mediaIds.length > 0) {
      const unknown = new Set(
        await this.messages.unknownMedia(
          phone.accountId,
          request.mediaIds.map((m) => m.id),
        ),
      );
      const first = request.mediaIds.find((m) => unknown.has(m.id));
      if (first) throw new InvalidParameterException(first.field, `${first.id} is not a media id of this account`);
    }
    const sendAt = body.send_at;
    const deliver = () => (sendAt === undefined ? this.send(phone, request) : this.scheduled.schedule(phone, request, sendAt));
    if (idempotencyKey === undefined) return deliver();

    const hash = createHash('sha256').update(JSON.stringify(body)).digest();
    const claim = await this.idempotency.claim(phone.phoneRef, idempotencyKey, hash, this.config.IDEMPOTENCY_TTL_SECONDS);
    if (claim.kind === 'done') return claim.response as SendMessageAnswer;
    if (claim.kind === 'mismatch') throw new InvalidParameterException('Idempotency-Key', 'was already used with a different request body');
    if (claim.kind === 'pending') throw new IdempotencyPendingException();
    try {
      const response = await deliver();
      await this.idempotency.complete(phone.phoneRef, idempotencyKey, response);
      return response;
    } catch (error) {
      await this.idempotency.release(phone.phoneRef, idempotencyKey);
      throw error;
    }
  }

  /** The phone's messages, newest first, filtered by status, recipient and time range. */
  async list(own: PhoneContext, query: MessageListQuery, paging: CursorPaging): Promise<CursorPage<MessageSummary>> {
    const phone = await this.phones.select(own, query.phone_id);
    const rows = await this.messages.list(phone.phoneRef, messageFilter(query), paging.limit, keyOf(paging));
    const next = keyCursor(rows, paging.limit, (row) => row.created_at);
    return cursorPage(
      rows.slice(0, paging.limit).map((row) => ({ ...row, phone_id: phone.phoneId })),
      paging,
      next,
    );
  }

  /** The phone's messages by hour of sending (UTC) and current status, for the last 24 hours or 7 days, the current hour last. */
  async stats(own: PhoneContext, query: StatsQuery): Promise<MessageStats> {
    const phone = await this.phones.select(own, query.phone_id);
    const window = query.window ?? '24h';
    const hours = STATS_WINDOWS[window];
    const first = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - (hours - 1) * HOUR_MS;
    const since = new Date(first).toISOString();
    const counts = new Map<string, Record<string, number>>();
    for (const row of await this.messages.statusBuckets(phone.phoneRef, since)) {
      const bucket = counts.get(row.hour) ?? {};
      bucket[row.status] = row.n;
      counts.set(row.hour, bucket);
    }
    const data = Array.from({ length: hours }, (_, i) => {
      const hour = new Date(first + i * HOUR_MS).toISOString().replace('.000Z', 'Z');
      const found = counts.get(hour) ?? {};
      const byStatus = { ...Object.fromEntries(CHARTED_STATUSES.map((s) => [s, 0])), ...found };
      return { hour, total: Object.values(found).reduce((a, b) => a + b, 0), by_status: byStatus };
    });
    return { phone_id: phone.phoneId, window, since: since.replace('.000Z', 'Z'), data };
  }

  /** A message of any phone of the account, sent or scheduled. */
  async find(phone: PhoneContext, id: string): Promise<MessageView> {
    const message = id.length <= 255 ? await this.messages.find(phone.accountId, id) : null;
    if (message) return message;
    const scheduled = await this.scheduled.find(phone.accountId, id);
    if (!scheduled) throw new ResourceNotFoundException('message', id);
    return scheduledView(scheduled, scheduled.message_id === null ? null : await this.messages.find(phone.accountId, scheduled.message_id));
  }

  /** Cancels a scheduled message of the account while it is still scheduled (409 after, 404 for none of the account's). */
  async cancel(phone: PhoneContext, id: string): Promise<MessageView> {
    if (await this.scheduled.cancel(phone.accountId, id)) return this.find(phone, id);
    const message = await this.find(phone, id);
    throw new NotScheduledException(id, message.status);
  }

  /** A scheduled message at its time: handed to the network through the same path as an immediate send. */
  sendScheduled(phone: PhoneContext, request: SendMessage): Promise<SendMessageAnswer> {
    return this.send(phone, request);
  }

  /** Every send goes through here: the network's rules (service window, opt-outs) are checked right before the provider is called. */
  private async send(phone: PhoneContext, request: SendMessage): Promise<SendMessageAnswer> {
    await this.rules.check(phone, request);
    await this.throughput.take(phone.phoneRef);
    const sent = await this.provider.send(phone, request);
    const recorded = await this.messages.insert({
      id: sent.messageId,
      phoneRef: phone.phoneRef,
      to: request.to,
      waId: sent.waId,
      type: request.type,
      payload: request.payload,
    });
    if (recorded) this.provider.messageStored(phone, { ...sent, to: request.to });
    // The network accepted the message, so the caller gets its answer; the first record of the id stays.
    else this.logger.warn({ messageId: sent.messageId }, 'the network answered with a message id already recorded; the earlier record is kept');
    return { messaging_product: this.network.NETWORK, contacts: [{ input: request.to, wa_id: sent.waId }], messages: [{ id: sent.messageId }] };
  }
}

/** 409: the first request with this key is still being sent. */
export class IdempotencyPendingException extends NetworkErrorException {
  constructor() {
    super(GatewayErrorCode.Conflict, 409, {
      message: 'A request with this Idempotency-Key is in progress',
      type: 'OAuthException',
      code: NetworkErrorCode.InvalidParameter,
      details: 'Idempotency-Key: the first request with this key has not finished; retry shortly.',
    });
  }
}
