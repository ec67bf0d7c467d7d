import type { QueryRunner } from 'typeorm';

/**
 * For a migration with `transaction = false`: builds index `index` of the migration's schema with CREATE INDEX
 * CONCURRENTLY, so writes go on while it builds. A build that failed halfway leaves an invalid index: it is dropped
 * first (CONCURRENTLY too), so running the migration again builds it afresh. `definition` is what follows the table:
 * its columns or expressions, then any `WHERE`.
 */
export async function createIndexConcurrently(q: QueryRunner, index: string, table: string, definition: string): Promise<void> {
  const schema = schemaOf(q);
  await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${schema}."${index}"`);
  await q.query(`CREATE INDEX CONCURRENTLY "${index}" ON ${schema}."${table}" ${definition}`);
}

/** The undo of `createIndexConcurrently`: a plain DROP INDEX, since TypeORM runs every undo inside a transaction, whatever `transaction` says. */
export async function dropIndex(q: QueryRunner, index: string): Promise<void> {
  await q.query(`DROP INDEX IF EXISTS ${schemaOf(q)}."${index}"`);
}

function schemaOf(q: QueryRunner): string {
  return `"${q.connection.driver.schema}"`;
}
