import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql, type SqlRunner } from '@app/database';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';

/** An account's push settings as stored (every field null when never set). */
export interface StoredSettings {
  cap_max_pushes: number | null;
  cap_window_hours: number | null;
  quiet_start: string | null;
  quiet_end: string | null;
  updated_at: string | null;
}

const VIEW = `cap_max_pushes, cap_window_hours, quiet_start, quiet_end, ${isoTimestamp('updated_at')}`;

/** push_settings: one row per account that set anything. */
@Injectable()
export class PushSettingsRepository {
  constructor(private readonly db: Sql) {}

  find(accountId: string): Promise<StoredSettings | null> {
    return this.db.one<StoredSettings>(`SELECT ${VIEW} FROM ${INGEST_PUSH_SCHEMA}.push_settings WHERE account_id = $1`, [accountId]);
  }

  /**
   * Replaces the account's settings on `tx` (one statement: concurrent writes end with one of them whole); answers
   * them before, as that transaction saw them (locked), and after.
   */
  async save(
    tx: SqlRunner,
    accountId: string,
    settings: Omit<StoredSettings, 'updated_at'>,
  ): Promise<{ before: StoredSettings | null; after: StoredSettings }> {
    const before = await tx.one<StoredSettings>(`SELECT ${VIEW} FROM ${INGEST_PUSH_SCHEMA}.push_settings WHERE account_id = $1 FOR UPDATE`, [accountId]);
    const row = (await tx.one<StoredSettings>(
      `INSERT INTO ${INGEST_PUSH_SCHEMA}.push_settings (account_id, cap_max_pushes, cap_window_hours, quiet_start, quiet_end)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id) DO UPDATE SET cap_max_pushes = EXCLUDED.cap_max_pushes, cap_window_hours = EXCLUDED.cap_window_hours,
         quiet_start = EXCLUDED.quiet_start, quiet_end = EXCLUDED.quiet_end, updated_at = now()
       RETURNING ${VIEW}`,
      [accountId, settings.cap_max_pushes, settings.cap_window_hours, settings.quiet_start, settings.quiet_end],
    ))!;
    return { before, after: row };
  }
}
