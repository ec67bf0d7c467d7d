// @ts-check
'use strict';
// Jest globalTeardown: drop the databases this run's tests created
// (t_<TEST_RUN_ID>_*), then stop what jest-global-setup started (PgBouncer first, so it
// holds no connection to them; the Redis Cluster too). Runs once
// however many projects call it.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');

async function dropRunDatabases(url, runId) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('select datname from pg_database where starts_with(datname, $1)', [`t_${runId}_`]);
    for (const { datname } of rows) {
      await client.query(`drop database if exists ${client.escapeIdentifier(datname)} with (force)`);
    }
  } finally {
    await client.end();
  }
}

/** The answers libs/testkit's response check validated in this run (each app's close appends a count). */
function reportResponseChecks(runId) {
  const dir = path.join(os.tmpdir(), `response-check-${runId}`);
  let text = '';
  try {
    text = fs.readFileSync(path.join(dir, 'count'), 'utf8');
  } catch {
    return;
  }
  const total = text.split('\n').reduce((sum, line) => sum + (Number(line) || 0), 0);
  console.log(`response check: ${total} answers validated against their operation's OpenAPI schema`);
  fs.rmSync(dir, { recursive: true, force: true });
}

module.exports = async () => {
  if (process.env.TEST_RUN_ID) reportResponseChecks(process.env.TEST_RUN_ID);
  const pending = globalThis.__localServices;
  if (!pending) return;
  globalThis.__localServices = undefined;
  const services = await pending.catch(() => null); // setup failed and Jest already reported it
  if (!services) return;
  const { postgres, pooler, redis, redisCluster } = services;
  try {
    await pooler?.stop();
    if (process.env.TEST_RUN_ID) await dropRunDatabases(postgres.url, process.env.TEST_RUN_ID);
  } finally {
    await Promise.all([postgres.stop(), redis.stop(), redisCluster?.stop()]);
  }
};
