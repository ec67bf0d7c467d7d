import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql, type SqlRunner } from '@app/database';

export interface RegistrationRow {
  id: string;
  phone: string;
  phone_id: string;
  phone_ref: string;
  types: string[];
  meta_version: string;
  endpoint: string;
  create_date: string;
  update_date: string;
  headers: string;
}

const VIEW = `SELECT w.id, p.phone, p.phone_id, w.phone_ref, w.types, w.meta_version, w.endpoint, ${isoTimestamp('w.created_at', 'create_date')}, ${isoTimestamp('w.updated_at', 'update_date')}, w.headers
                FROM gateway.webhook_registrations w JOIN gateway.phones p ON p.id = w.phone_ref`;

@Injectable()
export class WebhookRegistrationsRepository {
  constructor(private readonly sql: Sql) {}

  async insert(input: { accountId: string; phoneRef: string; types: string[]; endpoint: string; headers: string }): Promise<RegistrationRow> {
    const created = await this.sql.one<{ id: string }>(
      `INSERT INTO gateway.webhook_registrations (account_id, phone_ref, types, endpoint, headers) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [input.accountId, input.phoneRef, input.types, input.endpoint, input.headers],
    );
    return (await this.find(input.accountId, created!.id))!;
  }

  list(accountId: string): Promise<RegistrationRow[]> {
    return this.sql.rows<RegistrationRow>(`${VIEW} WHERE w.account_id = $1 ORDER BY w.created_at, w.id`, [accountId]);
  }

  find(accountId: string, id: string): Promise<RegistrationRow | null> {
    return this.sql.one<RegistrationRow>(`${VIEW} WHERE w.account_id = $1 AND w.id = $2`, [accountId, id]);
  }

  async update(accountId: string, id: string, changes: { phoneRef?: string; types?: string[]; endpoint?: string; headers?: string; metaVersion?: string }): Promise<RegistrationRow | null> {
    const updated = await this.sql.one<{ id: string }>(
      `UPDATE gateway.webhook_registrations SET phone_ref = COALESCE($3, phone_ref), types = COALESCE($4, types), endpoint = COALESCE($5, endpoint),
              headers = COALESCE($6, headers), meta_version = COALESCE($7, meta_version), updated_at = now()
        WHERE account_id = $1 AND id = $2 RETURNING id`,
      [accountId, id, changes.phoneRef ?? null, changes.types ?? null, changes.endpoint ?? null, changes.headers ?? null, changes.metaVersion ?? null],
    );
    return updated ? this.find(accountId, id) : null;
  }

  async delete(accountId: string, id: string, phoneRef?: string): Promise<boolean> {
    const rows = await this.sql.rows(`DELETE FROM gateway.webhook_registrations WHERE account_id = $1 AND id = $2 AND ($3::uuid IS NULL OR phone_ref = $3) RETURNING id`, [accountId, id, phoneRef ?? null]);
    return rows.length > 0;
  }

  /** The phone's webhooks that take `type`, inside the caller's transaction. */
  subscribed(tx: SqlRunner, phoneRef: string, type: string): Promise<{ id: string; endpoint: string; headers: string }[]> {
    return tx.rows(`SELECT id, endpoint, headers FROM gateway.webhook_registrations WHERE phone_ref = $1 AND $2 = ANY(types)`, [phoneRef, type]);
  }
}
