import { Injectable } from '@nestjs/common';
import { PhonesService } from '../accounts/phones.service';
import type { PhoneQuery } from '../common/phone-query.dto';
import { cursorPage, keyOf, type CursorPage, type CursorPaging } from '../common/cursor-page';
import { ResourceNotFoundException } from '../errors/network-error.exception';
import type { PhoneContext } from '../network/chat-provider';
import type { ConversationMessage, ConversationSummary } from './conversation-answers.dto';
import { WA_ID, type ConversationListQuery } from './conversation-query.dto';
import { ConversationsConfig } from './conversations.config';
import { ConversationsRepository } from './conversations.repository';

/** The phone's conversations and each one's messages both ways. */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly config: ConversationsConfig,
    private readonly phones: PhonesService,
    private readonly conversations: ConversationsRepository,
  ) {}

  async list(own: PhoneContext, query: ConversationListQuery, paging: CursorPaging): Promise<CursorPage<ConversationSummary>> {
    const phone = await this.phones.select(own, query.phone_id);
    const rows = await this.conversations.list(phone.phoneRef, phone.accountId, this.config.GATEWAY_SERVICE_WINDOW_SECONDS, paging.limit, keyOf(paging));
    const next = rows.length > paging.limit ? `k:${rows[paging.limit - 1].cursor_at}|${rows[paging.limit - 1].wa_id}` : null;
    return cursorPage(
      rows.slice(0, paging.limit).map(({ cursor_at: _, ...row }) => row),
      paging,
      next,
    );
  }

  /** One conversation; 404 when the phone has none with `waId` (another account's contacts included). */
  async find(own: PhoneContext, waId: string, query: PhoneQuery): Promise<ConversationSummary> {
    const phone = await this.phones.select(own, query.phone_id);
    const [row] = WA_ID.test(waId)
      ? await this.conversations.list(phone.phoneRef, phone.accountId, this.config.GATEWAY_SERVICE_WINDOW_SECONDS, 1, null, waId)
      : [];
    if (!row) throw new ResourceNotFoundException('conversation', waId);
    const { cursor_at: _, ...summary } = row;
    return summary;
  }

  /** 404 when the phone has no conversation with `waId` (another account's contacts included). */
  async messages(own: PhoneContext, waId: string, query: ConversationListQuery, paging: CursorPaging): Promise<CursorPage<ConversationMessage>> {
    const phone = await this.phones.select(own, query.phone_id);
    if (!WA_ID.test(waId) || !(await this.conversations.exists(phone.phoneRef, waId))) throw new ResourceNotFoundException('conversation', waId);
    const rows = await this.conversations.thread(phone.phoneRef, waId, paging.limit, keyOf(paging));
    const next = rows.length > paging.limit ? `k:${rows[paging.limit - 1].cursor_at}|${rows[paging.limit - 1].id}` : null;
    return cursorPage(
      rows.slice(0, paging.limit).map(({ cursor_at: _, ...row }) => row),
      paging,
      next,
    );
  }
}
