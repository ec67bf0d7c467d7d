import type { DataSource } from 'typeorm';
import { dataSourceOptions, type DatabaseOptions } from './data-source-options';

/**
 * Creates the app's schema and runs pending migrations, holding an advisory lock
 * so replicas starting together migrate once.
 */
export async function migrateDatabase(dataSource: DataSource, schema: string): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`migrate:${schema}`]);
    // Created only when missing: CREATE SCHEMA (even IF NOT EXISTS) needs CREATE on the database, which
    // a deployment's role lacks when the schema was made for it (k8s/database-roles.sql).
    const [{ exists }] = (await runner.query('SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS exists', [schema])) as Array<{ exists: boolean }>;
    if (!exists) await runner.query(`CREATE SCHEMA "${schema.replace(/"/g, '""')}"`);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrate:${schema}`]).catch(() => undefined);
    await runner.release();
  }
}

/**
 * Migrates the app's schema on a connection of its own to `url`, closed afterwards. `url` must reach PostgreSQL
 * without a transaction pooler: the advisory lock above belongs to the session.
 */
export async function migrateDatabaseAt(url: string, options: DatabaseOptions): Promise<void> {
  // Two connections: one holds the lock, the migrations run their transactions on another.
  const { DataSource } = await import('typeorm');
  const dataSource = await new DataSource(dataSourceOptions(url, 2, options)).initialize();
  try {
    await migrateDatabase(dataSource, options.schema);
  } finally {
    await dataSource.destroy();
  }
}
