import { Injectable } from '@nestjs/common';
import { Sql, type SqlRunner } from '@app/database';
import type { OptOutView } from './opt-out.dto';
import { DEFAULT_OPT_IN_KEYWORDS, DEFAULT_OPT_OUT_KEYWORDS, type Keywords } from './opt-out-keywords';

const VIEW = `wa_id, source, keyword, to_char(opted_out_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS opted_out_at`;

/** Contacts opted out of an account's messages, and the account's keywords. Read at send time, never cached. */
@Injectable()
export class OptOutsRepository {
  constructor(private readonly sql: Sql) {}

  find(accountId: string, waId: string): Promise<OptOutView | null> {
    return this.sql.one<OptOutView>(`SELECT ${VIEW} FROM gateway.opt_outs WHERE account_id = $1 AND wa_id = $2`, [accountId, waId]);
  }

  /** Opts the contact out; null when it already was (the first opt-out is kept). */
  optOut(tx: SqlRunner, accountId: string, waId: string, source: 'keyword' | 'api', keyword: string | null): Promise<OptOutView | null> {
    return tx.one<OptOutView>(
      `INSERT INTO gateway.opt_outs (account_id, wa_id, source, keyword) VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, wa_id) DO NOTHING RETURNING ${VIEW}`,
      [accountId, waId, source, keyword],
    );
  }

  /** Lifts the contact's opt-out; false when there was none. */
  async optIn(tx: SqlRunner, accountId: string, waId: string): Promise<boolean> {
    return (await tx.rows(`DELETE FROM gateway.opt_outs WHERE account_id = $1 AND wa_id = $2 RETURNING 1`, [accountId, waId])).length > 0;
  }

  async keywords(runner: SqlRunner, accountId: string): Promise<Keywords> {
    const row = await runner.one<{ opt_out: string[]; opt_in: string[] }>(`SELECT opt_out, opt_in FROM gateway.opt_out_keywords WHERE account_id = $1`, [
      accountId,
    ]);
    return row ? { optOut: row.opt_out, optIn: row.opt_in } : { optOut: DEFAULT_OPT_OUT_KEYWORDS, optIn: DEFAULT_OPT_IN_KEYWORDS };
  }

  async setKeywords(accountId: string, keywords: Keywords, runner: SqlRunner = this.sql): Promise<void> {
    await runner.rows(
      `INSERT INTO gateway.opt_out_keywords (account_id, opt_out, opt_in) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET opt_out = excluded.opt_out, opt_in = excluded.opt_in, updated_at = now()`,
      [accountId, keywords.optOut, keywords.optIn],
    );
  }
}
