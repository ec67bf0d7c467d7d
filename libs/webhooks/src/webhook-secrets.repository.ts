import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { WebhookTables } from './webhook-tables';

/** What a webhook keeps encrypted at rest. */
export interface SecretsAtRest {
  secret: string | null;
  previous_secret: string | null;
  headers: Record<string, string>;
}

/** Signing secrets and header values at rest, for their re-encryption (WebhookMaintenance). */
@Injectable()
export class WebhookSecretsRepository {
  constructor(
    private readonly db: Sql,
    private readonly tables: WebhookTables,
  ) {}

  /**
   * Webhooks with a secret or a header value not made with the key `currentPrefix` starts
   * (plaintext, or an older key).
   */
  toReencrypt(currentPrefix: string, limit: number): Promise<Array<SecretsAtRest & { id: string }>> {
    return this.db.rows(
      `SELECT id, secret, previous_secret, headers FROM ${this.tables.webhooks}
       WHERE (secret IS NOT NULL AND NOT starts_with(secret, $1)) OR (previous_secret IS NOT NULL AND NOT starts_with(previous_secret, $1))
          OR EXISTS (SELECT 1 FROM jsonb_each_text(headers) h WHERE NOT starts_with(h.value, $1))
       ORDER BY id LIMIT $2`,
      [currentPrefix, limit],
    );
  }

  /** Writes re-encrypted secrets and headers, each row only if it still holds what was read. */
  async replace(rows: Array<{ id: string; old: SecretsAtRest; next: SecretsAtRest }>): Promise<number> {
    const updated = await this.db.rows(
      `UPDATE ${this.tables.webhooks} w SET secret = r.secret, previous_secret = r.previous_secret, headers = r.headers
       FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, old_secret text, secret text, old_previous text, previous_secret text, old_headers jsonb, headers jsonb)
       WHERE w.id = r.id AND w.secret IS NOT DISTINCT FROM r.old_secret AND w.previous_secret IS NOT DISTINCT FROM r.old_previous AND w.headers = r.old_headers
       RETURNING 1`,
      [
        JSON.stringify(
          rows.map(({ id, old, next }) => ({
            id,
            old_secret: old.secret,
            secret: next.secret,
            old_previous: old.previous_secret,
            previous_secret: next.previous_secret,
            old_headers: old.headers,
            headers: next.headers,
          })),
        ),
      ],
    );
    return updated.length;
  }
}
