import type { DataSource } from 'typeorm';

/**
 * Creates the app's schema and runs pending migrations, holding an advisory lock
 * so replicas starting together migrate once.
 */
export async function migrateDatabase(dataSource: DataSource, schema: string): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`migrate:${schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '""')}"`);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrate:${schema}`]).catch(() => undefined);
    await runner.release();
  }
}
