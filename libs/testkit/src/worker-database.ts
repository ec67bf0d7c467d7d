import { Client } from 'pg';

/**
 * A database of this Jest worker's own, created on first use: test files in one
 * worker run one after another, workers in parallel never share a database.
 * Global teardown drops every t_<run>_* database.
 */
export async function workerDatabaseUrl(): Promise<string> {
  const admin = process.env.TEST_DATABASE_URL;
  const run = process.env.TEST_RUN_ID;
  if (!admin || !run) throw new Error('TEST_DATABASE_URL and TEST_RUN_ID are set by tools/jest-global-setup.js; run the tests through Jest.');
  const name = `t_${run}_${process.env.JEST_WORKER_ID ?? '1'}`;
  const key = `TESTKIT_DB_${name}`;
  if (!process.env[key]) {
    const client = new Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE "${name}"`);
    } catch (error) {
      if ((error as { code?: string }).code !== '42P04') throw error; // already exists
    } finally {
      await client.end();
    }
    process.env[key] = '1';
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}
