import { Injectable } from '@nestjs/common';
import { Sql, type SqlRunner } from '@app/database';
import type { PhoneColumns } from '../providers/chat-provider';
import type { TemplateDraft } from './template.validator';

export interface TemplateView {
  id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: unknown[];
}

const COLUMNS = 'id, name, language, category, status, components';

/** A template awaiting review, with the first phone of its account (the notification goes to that phone's webhooks). */
export interface PendingTemplate extends PhoneColumns {
  id: string;
  components: unknown[];
  /** When it was created, in epoch milliseconds. */
  since_ms: number;
}

@Injectable()
export class TemplatesRepository {
  constructor(private readonly sql: Sql) {}

  find(accountId: string, id: string): Promise<TemplateView | null> {
    return this.sql.one<TemplateView>(`SELECT ${COLUMNS} FROM gateway.templates WHERE account_id = $1 AND id = $2`, [accountId, id]);
  }

  findByName(accountId: string, name: string, language: string): Promise<TemplateView | null> {
    return this.sql.one<TemplateView>(`SELECT ${COLUMNS} FROM gateway.templates WHERE account_id = $1 AND name = $2 AND language = $3`, [accountId, name, language]);
  }

  /** Stores a new template; null when one with the same name and language already exists (a concurrent creation). */
  insert(accountId: string, id: string, status: string, category: string, draft: TemplateDraft): Promise<TemplateView | null> {
    return this.sql.one<TemplateView>(
      `INSERT INTO gateway.templates (id, account_id, name, language, category, status, components, allow_category_change, message_send_ttl_seconds)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (account_id, name, language) DO NOTHING RETURNING ${COLUMNS}`,
      [id, accountId, draft.name, draft.language, category, status, JSON.stringify(draft.components), draft.allowCategoryChange, draft.messageSendTtlSeconds ?? null],
    );
  }

  /** Up to `limit` PENDING templates after `afterId` (by id). */
  pending(afterId: string, limit: number): Promise<PendingTemplate[]> {
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

  /** Sets a reviewed status; returns the template when it changed. */
  setStatus(tx: SqlRunner, accountId: string, id: string, status: string, reason: string | null): Promise<{ id: string; name: string; language: string } | null> {
    return tx.one(
      `UPDATE gateway.templates SET status = $3, rejected_reason = $4, updated_at = now() WHERE account_id = $1 AND id = $2 AND status IS DISTINCT FROM $3 RETURNING id, name, language`,
      [accountId, id, status, reason],
    );
  }
}
