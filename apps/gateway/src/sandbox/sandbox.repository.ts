import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import type { ProfileFields } from '../network/chat-provider';

/** A business phone as SQL selects it beside a message or template (`phone_ref` is the phones row id). */
export interface PhoneColumns {
  phone_ref: string;
  account_id: string;
  phone: string;
  phone_id: string;
  waba_id: string | null;
}

/** A template as the sandbox checks a template message against it. */
export interface SendableTemplate {
  status: string;
  category: string;
  components: unknown[];
}

/** What the sandbox prices a message by: its template's category (null for a message that is not a template) and when it was sent. */
export interface MessagePricingFacts {
  template_category: string | null;
  /** When it was recorded, in epoch milliseconds. */
  created_ms: number;
}

/** A message whose statuses have not reached a final one, with the phone it was sent from. */
export interface UnfinishedMessage extends PhoneColumns, MessagePricingFacts {
  id: string;
  wa_id: string;
  status: string;
  /** When its last status was recorded, in epoch milliseconds. */
  since_ms: number;
}

/** The template category of message `m` (its account's template of the name and language it names), and its time. */
const PRICING_FACTS = `(SELECT t.category FROM gateway.templates t
      WHERE m.type = 'template' AND t.account_id = p.account_id
        AND t.name = m.payload -> 'template' ->> 'name' AND t.language = m.payload -> 'template' -> 'language' ->> 'code') AS template_category,
    (extract(epoch FROM m.created_at) * 1000)::float8 AS created_ms`;

/** A template awaiting review, with the first phone of its account (the notification goes to that phone's webhooks). */
export interface PendingTemplate extends PhoneColumns {
  id: string;
  components: unknown[];
  /** When it was created, in epoch milliseconds. */
  since_ms: number;
}

/**
 * What the sandbox keeps and reads as the network would: the business profiles (the real
 * network keeps its own), the templates it checks sends against, and the messages and
 * templates whose statuses and reviews it still has to play.
 */
@Injectable()
export class SandboxRepository {
  constructor(private readonly sql: Sql) {}

  async profile(phoneRef: string): Promise<Record<string, unknown>> {
    const row = await this.sql.one<{ fields: Record<string, unknown> }>(`SELECT fields FROM gateway.profiles WHERE phone_ref = $1`, [phoneRef]);
    return row?.fields ?? {};
  }

  /** Sets the given fields; the others keep their values. */
  async updateProfile(phoneRef: string, fields: ProfileFields): Promise<void> {
    await this.sql.rows(
      `INSERT INTO gateway.profiles (phone_ref, fields) VALUES ($1, $2)
       ON CONFLICT (phone_ref) DO UPDATE SET fields = gateway.profiles.fields || EXCLUDED.fields, updated_at = now()`,
      [phoneRef, JSON.stringify(fields)],
    );
  }

  template(accountId: string, name: string, language: string): Promise<SendableTemplate | null> {
    return this.sql.one<SendableTemplate>(`SELECT status, category, components FROM gateway.templates WHERE account_id = $1 AND name = $2 AND language = $3`, [
      accountId,
      name,
      language,
    ]);
  }

  /** How the sandbox prices a message it plays; null when no message has the id. */
  messagePricing(messageId: string): Promise<MessagePricingFacts | null> {
    return this.sql.one<MessagePricingFacts>(`SELECT ${PRICING_FACTS} FROM gateway.messages m JOIN gateway.phones p ON p.id = m.phone_ref WHERE m.id = $1`, [
      messageId,
    ]);
  }

  /** Up to `limit` messages after `afterId` (by id) still short of `read` or `failed`; paging by id walks the primary key once. */
  unfinishedMessages(afterId: string, limit: number): Promise<UnfinishedMessage[]> {
    return this.sql.rows<UnfinishedMessage>(
      `SELECT m.id, m.wa_id, m.status, (extract(epoch FROM m.updated_at) * 1000)::float8 AS since_ms, ${PRICING_FACTS},
              p.id AS phone_ref, p.account_id, p.phone, p.phone_id, a.waba_id
         FROM gateway.messages m JOIN gateway.phones p ON p.id = m.phone_ref JOIN gateway.accounts a ON a.id = p.account_id
        WHERE m.id > $1 AND m.status IN ('accepted', 'sent', 'delivered')
        ORDER BY m.id LIMIT $2`,
      [afterId, limit],
    );
  }

  /** Up to `limit` PENDING templates after `afterId` (by id). */
  pendingTemplates(afterId: string, limit: number): Promise<PendingTemplate[]> {
    return this.sql.rows<PendingTemplate>(
      `SELECT t.id, t.components, (extract(epoch FROM t.created_at) * 1000)::float8 AS since_ms,
              p.id AS phone_ref, p.account_id, p.phone, p.phone_id, a.waba_id
         FROM gateway.templates t
         JOIN gateway.accounts a ON a.id = t.account_id
         JOIN LATERAL (SELECT id, account_id, phone, phone_id FROM gateway.phones WHERE account_id = t.account_id ORDER BY created_at LIMIT 1) p ON true
        WHERE t.id > $1 AND t.status = 'PENDING'
        ORDER BY t.id LIMIT $2`,
      [afterId, limit],
    );
  }
}
