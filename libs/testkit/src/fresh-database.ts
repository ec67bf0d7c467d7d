import { Client } from 'pg';

/**
 * Creates (or recreates, dropping its connections) a database on TEST_DATABASE_URL's server and returns its URL.
 * Name it `t_<TEST_RUN_ID>_…`: the global teardown drops every such database of the run.
 */
export async function freshDatabase(name: string): Promise<string> {
  const admin = process.env.TEST_DATABASE_URL!;
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}
