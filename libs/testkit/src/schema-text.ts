import { Sql, type SqlRunner } from '@app/database';
import { Pool } from 'pg';

/**
 * Every row of every table of `schemas` (one, several, or every schema but PostgreSQL's own when omitted), as text:
 * what `pg_dump --data-only` holds, read over SQL, since the system's pg_dump (15) refuses a newer server (the
 * embedded 18). For "this secret is stored nowhere" checks. `db` is a runner, or a database URL (one connection,
 * closed after). With `containing`, only the rows whose text holds one of those strings (say an account's id): the
 * filter runs in SQL, so a schema that other tests filled with millions of rows costs no memory here.
 */
export async function schemaText(db: SqlRunner | string, schemas?: string | readonly string[], containing?: readonly string[]): Promise<string> {
  if (typeof db === 'string') {
    const pool = new Pool({ connectionString: db, max: 1 });
    try {
      return await schemaText(new Sql(pool), schemas, containing);
    } finally {
      await pool.end();
    }
  }
  const only = schemas === undefined ? null : typeof schemas === 'string' ? [schemas] : [...schemas];
  const tables = await db.rows<{ name: string }>(
    `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
        AND ($1::text[] IS NULL OR table_schema = ANY($1)) ORDER BY 1`,
    [only],
  );
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await db.rows<{ row: string }>(
      `SELECT t::text AS row FROM ${name} t
        WHERE $1::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest($1::text[]) s WHERE strpos(t::text, s) > 0)`,
      [containing === undefined ? null : [...containing]],
    );
    parts.push(`-- ${name}`);
    for (const { row } of rows) parts.push(row);
  }
  return parts.join('\n');
}
