import { Client } from 'pg';

/**
 * A database of this lib's own tests (t_<run>_<label>_<worker>, dropped by the global teardown), made afresh on
 * TEST_DATABASE_URL's server. The test kit boots apps on top of this lib, so this lib's tests do not use it.
 */
export async function scratchDatabase(label: string): Promise<string> {
  const admin = process.env.TEST_DATABASE_URL!;
  const name = `t_${process.env.TEST_RUN_ID}_${label}_${process.env.JEST_WORKER_ID ?? '1'}`;
  const client = new Client({ connectionString: admin });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}
