import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql, type SqlRunner } from '@app/database';
import type { TemplateDraft } from '../network/chat-provider';
import type { TemplateView } from './template-answers.dto';
import type { TemplateFilter } from './template-query.dto';

const COLUMNS = 'id, name, language, category, status, components';

@Injectable()
export class TemplatesRepository {
  constructor(private readonly sql: Sql) {}

  find(accountId: string, id: string): Promise<TemplateView | null> {
    return this.sql.one<TemplateView>(`SELECT ${COLUMNS} FROM gateway.templates WHERE account_id = $1 AND id = $2`, [accountId, id]);
  }

  /**
   * One page of the account's templates, newest first, after the keyset `after`; `limit + 1`
   * rows, so the caller knows whether another page follows. `created_at` is the keyset's.
   */
  list(accountId: string, filter: TemplateFilter, limit: number, after: { at: string; id: string } | null): Promise<(TemplateView & { created_at: string })[]> {
    return this.sql.rows(
      `SELECT ${COLUMNS}, ${isoTimestamp('created_at')} FROM gateway.templates
        WHERE account_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR category = $3)
          AND ($4::timestamptz IS NULL OR (created_at, id) < ($4, $5))
        ORDER BY created_at DESC, id DESC LIMIT $6`,
      [accountId, filter.status ?? null, filter.category ?? null, after?.at ?? null, after?.id ?? null, limit + 1],
    );
  }

  findByName(accountId: string, name: string, language: string): Promise<TemplateView | null> {
    return this.sql.one<TemplateView>(`SELECT ${COLUMNS} FROM gateway.templates WHERE account_id = $1 AND name = $2 AND language = $3`, [
      accountId,
      name,
      language,
    ]);
  }

  /** Stores a new template; null when one with the same name and language already exists (a concurrent creation). */
  insert(accountId: string, id: string, status: string, category: string, draft: TemplateDraft): Promise<TemplateView | null> {
    return this.sql.one<TemplateView>(
      `INSERT INTO gateway.templates (id, account_id, name, language, category, status, components, allow_category_change, message_send_ttl_seconds)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (account_id, name, language) DO NOTHING RETURNING ${COLUMNS}`,
      [
        id,
        accountId,
        draft.name,
        draft.language,
        category,
        status,
        JSON.stringify(draft.components),
        draft.allowCategoryChange,
        draft.messageSendTtlSeconds ?? null,
      ],
    );
  }

  /** Sets a reviewed status; returns the template when it changed. */
  setStatus(
    tx: SqlRunner,
    accountId: string,
    id: string,
    status: string,
    reason: string | null,
  ): Promise<{ id: string; name: string; language: string } | null> {
    return tx.one(
      `UPDATE gateway.templates SET status = $3, rejected_reason = $4, updated_at = now() WHERE account_id = $1 AND id = $2 AND status IS DISTINCT FROM $3 RETURNING id, name, language`,
      [accountId, id, status, reason],
    );
  }
}
