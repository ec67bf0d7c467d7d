import { Injectable } from '@nestjs/common';
import type { SqlRunner } from '@app/database';
import { NetworkConfig } from '../network/network.config';
import type { PhoneContext } from '../network/chat-provider';
import { notification } from '../network/network-notification';
import { NetworkNotificationOutbox } from '../webhooks/network-notification.outbox';
import { ConversationsRepository, type InboundRow } from './conversations.repository';
import { inboundText, keywordOf, type Keywords } from './opt-out-keywords';
import { OptOutsRepository } from './opt-outs.repository';
import { USER_PREFERENCES_FIELD, userPreferencesValue } from './user-preferences';

const WA_ID = /^\d{1,32}$/;
const TYPE = /^[a-z_]{1,32}$/;

/** A change of a contact's opt-out: who asked (a keyword and the contact's name, or the API). */
export interface OptChange {
  waId: string;
  change: 'out' | 'in';
  source: 'keyword' | 'api';
  keyword: string | null;
  profileName: string | null;
}

/**
 * Where customers' messages are kept: each new inbound message is stored in its contact's
 * conversation (opening the service window), and a text that is an opt-out or opt-in keyword
 * changes the contact's opt-out, announced to `user_preferences` webhooks. Runs in the
 * transaction that takes the notification, so a repeated one changes nothing.
 */
@Injectable()
export class ConversationInbox {
  constructor(
    private readonly network: NetworkConfig,
    private readonly conversations: ConversationsRepository,
    private readonly optOuts: OptOutsRepository,
    private readonly outbox: NetworkNotificationOutbox,
  ) {}

  /** Stores `messages` (already deduplicated by id) for `phone`; returns the webhook deliveries recorded. */
  async record(tx: SqlRunner, phone: PhoneContext, messages: Record<string, unknown>[], contacts: unknown): Promise<number> {
    const names = profileNames(contacts);
    const rows: InboundRow[] = [];
    for (const message of messages) {
      const waId = typeof message.from === 'string' ? message.from.replace(/\D/g, '') : '';
      if (!WA_ID.test(waId)) continue;
      rows.push({
        id: String(message.id),
        waId,
        type: typeof message.type === 'string' && TYPE.test(message.type) ? message.type : 'unknown',
        payload: message,
        timestamp: secondsOf(message.timestamp),
        profileName: names.get(waId) ?? null,
      });
    }
    await this.conversations.inbound(tx, phone.phoneRef, rows);
    await this.conversations.receivedMedia(tx, phone.accountId, phone.phoneRef, rows.flatMap(mediaOf));
    let keywords: Keywords | undefined;
    let deliveries = 0;
    for (const row of rows) {
      const text = inboundText(row.payload);
      if (text === null) continue;
      keywords ??= await this.optOuts.keywords(tx, phone.accountId);
      const found = keywordOf(text, keywords);
      if (found)
        deliveries += await this.apply(tx, phone, {
          waId: row.waId,
          change: found.change,
          source: 'keyword',
          keyword: found.keyword,
          profileName: row.profileName,
        });
    }
    return deliveries;
  }

  /** Applies an opt-out or opt-in; when it changes the state, records the `user_preferences` notification. Returns the deliveries recorded. */
  async apply(tx: SqlRunner, phone: PhoneContext, change: OptChange): Promise<number> {
    const changed =
      change.change === 'out'
        ? (await this.optOuts.optOut(tx, phone.accountId, change.waId, change.source, change.keyword)) !== null
        : await this.optIn(tx, phone, change.waId);
    if (!changed) return 0;
    const by = change.source === 'keyword' ? `sent ${change.keyword}` : 'set through the API';
    const detail = change.change === 'out' ? `User requested to stop marketing messages (${by})` : `User requested to resume marketing messages (${by})`;
    const value = userPreferencesValue(this.network.NETWORK, phone, {
      waId: change.waId,
      profileName: change.profileName,
      value: change.change === 'out' ? 'stop' : 'resume',
      detail,
    });
    return this.outbox.record(tx, phone.phoneRef, USER_PREFERENCES_FIELD, notification(phone, USER_PREFERENCES_FIELD, value));
  }

  /** Call after the transaction committed. */
  recorded(deliveries: number): void {
    this.outbox.recorded(deliveries);
  }

  private optIn(tx: SqlRunner, phone: PhoneContext, waId: string): Promise<boolean> {
    return this.optOuts.optIn(tx, phone.accountId, waId);
  }
}

const MEDIA_KINDS = new Set(['image', 'audio', 'video', 'document', 'sticker']);
const MEDIA_ID = /^[\w.-]{1,128}$/;
const MIME_TYPE = /^[\w.+-]{1,64}\/[\w.+-]{1,63}$/;
const BASE64 = /^[A-Za-z0-9+/]{0,128}={0,2}$/;

/** The media a customer's message carries, as the network notifies it (id, mime_type, sha256). */
function mediaOf(row: InboundRow): { id: string; kind: string; mimeType: string; sha256: string }[] {
  if (!MEDIA_KINDS.has(row.type)) return [];
  const media = row.payload[row.type] as Record<string, unknown> | undefined;
  const id = media?.id;
  if (typeof id !== 'string' || !MEDIA_ID.test(id)) return [];
  const mimeType = typeof media?.mime_type === 'string' && MIME_TYPE.test(media.mime_type) ? media.mime_type.toLowerCase() : 'application/octet-stream';
  const sha256 = typeof media?.sha256 === 'string' && BASE64.test(media.sha256) && media.sha256.length % 4 === 0 ? media.sha256 : '';
  return [{ id, kind: row.type, mimeType, sha256 }];
}

function profileNames(contacts: unknown): Map<string, string> {
  const names = new Map<string, string>();
  if (!Array.isArray(contacts)) return names;
  for (const contact of contacts as unknown[]) {
    if (contact === null || typeof contact !== 'object') continue;
    const { wa_id: waId, profile } = contact as Record<string, unknown>;
    const name = profile !== null && typeof profile === 'object' ? (profile as Record<string, unknown>).name : undefined;
    if (typeof waId === 'string' && typeof name === 'string') names.set(waId.replace(/\D/g, ''), name.slice(0, 256));
  }
  return names;
}

/** The network's Unix seconds; now when it holds none PostgreSQL can store. */
function secondsOf(timestamp: unknown): number {
  const seconds = typeof timestamp === 'string' || typeof timestamp === 'number' ? Number(timestamp) : NaN;
  return Number.isFinite(seconds) && seconds > 0 && seconds <= 253_402_300_799 ? Math.floor(seconds) : Math.floor(Date.now() / 1000);
}
