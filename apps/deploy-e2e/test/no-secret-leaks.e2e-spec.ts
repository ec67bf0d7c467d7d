import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateEncryptionKeys } from '@app/secrets';
import { TS_CHILD_PRELOAD } from '@app/testkit';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { ROOT } from '../src/workspace';

const run = promisify(execFile);
const APPS = ['docstore', 'gateway', 'ingest-push'] as const;
type App = (typeof APPS)[number];

interface Running {
  child: ChildProcess;
  url: string;
}

/**
 * Issue 28: no credential sits readable. The three services run as processes (from source) on one
 * database, at debug level; a run uses a credential of every kind, refused ones included. Then
 * everything they logged, every row of the database (databaseText) and every Redis key of their prefix (name and
 * DUMP) are searched for each credential, and none is found.
 * Gateway webhook custom header values are encrypted at rest (gateway-safety) and are searched too.
 */
describe('no credential in logs, the database or Redis', () => {
  const runId = `${process.env.TEST_RUN_ID ?? process.pid}`.replace(/\W/g, '_');
  const database = `t_${runId}_leaks`;
  const prefix = `test:${runId}:leaks:`;
  const verifyToken = `verify-${randomUUID()}`;
  const appSecret = `appsecret-${randomUUID()}`;
  const encryptionKeys = generateEncryptionKeys('leaks');
  let databaseUrl: string;
  const output: string[] = [];
  const running = new Map<App, Running>();
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

  const env = (app: App): NodeJS.ProcessEnv => ({
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `${prefix}${app}:`,
    ENCRYPTION_KEYS: encryptionKeys,
    LOG_LEVEL: 'trace',
    PORT: '0',
    WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
    CLOUD_API_VERIFY_TOKEN: verifyToken,
    CLOUD_API_APP_SECRET: appSecret,
  });

  /** `node main.ts <args>` of `app`, compiled as it loads; resolves with its stdout (the credential it mints, by design), logs its stderr. */
  const cli = async (app: App, args: string[]): Promise<string> => {
    const { stdout, stderr } = await run(process.execPath, ['-r', TS_CHILD_PRELOAD, join(ROOT, 'apps', app, 'src/main.ts'), ...args], {
      cwd: ROOT,
      env: env(app),
    });
    output.push(stderr);
    return stdout.trim();
  };

  const start = (app: App): Promise<Running> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['-r', TS_CHILD_PRELOAD, join(ROOT, 'apps', app, 'src/main.ts')], {
        cwd: ROOT,
        env: env(app),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
      child.stdout!.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        output.push(text);
        const ready = /"url":"([^"]+)"[^\n]*"msg":"[\w-]+ ready"/.exec(text);
        if (ready) resolve({ child, url: ready[1] });
      });
      child.once('exit', (code) => reject(new Error(`${app} exited (${code}): ${output.join('').slice(-2000)}`)));
    });

  beforeAll(async () => {
    const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}"`);
    await admin.query(`CREATE DATABASE "${database}"`);
    await admin.end();
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    // One after the other: each migrates its own schema.
    for (const app of APPS) running.set(app, await start(app));
  }, 180_000);

  afterAll(async () => {
    for (const { child } of running.values()) {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    }
    for (const key of await redis.keys(`${prefix}*`)) await redis.del(key);
    redis.disconnect();
  });

  it('finds none of the credentials a full run used', async () => {
    const docstoreClient = randomUUID();
    const docstoreToken = await cli('docstore', ['token', '--client', docstoreClient, '--scopes', '*', '--name', 'leaks']);
    const gatewayKey = await cli('gateway', ['apikey', '--phone', '15550109999', '--phone-id', '987654321', '--name', 'leaks']);
    const salesKey = await cli('ingest-push', ['apikey', '--account', 'leaks', '--name', 'leaks']);
    const pushToken = await cli('ingest-push', ['push-token', '--account', 'leaks', '--name', 'leaks']);
    const headerValue = `Bearer receiver-${randomUUID()}`;
    for (const credential of [docstoreToken, gatewayKey, salesKey, pushToken]) expect(credential).toMatch(/\S{20,}/);

    const docstore = running.get('docstore')!.url;
    const gateway = running.get('gateway')!.url;
    const ingest = running.get('ingest-push')!.url;
    const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    const expectStatus = async (res: Promise<Response>, status: number) => expect((await res).status).toBe(status);

    // docstore: a document, a webhook (its signing secret is in the answer only) and its rotation.
    const base = `${docstore}/api/v1/client/${docstoreClient}`;
    await expectStatus(
      fetch(`${base}/production/context/shop/type/product/k1`, {
        method: 'POST',
        headers: bearer(docstoreToken),
        body: JSON.stringify({ environment: 'production', context: 'shop', type: 'product', key: 'k1', data: { a: 1 } }),
      }),
      201,
    );
    const hook = await fetch(`${base}/webhooks`, {
      method: 'POST',
      headers: bearer(docstoreToken),
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['document.updated'] }),
    });
    expect(hook.status).toBe(201);
    const { id: hookId, secret } = (await hook.json()) as { id: string; secret: string };
    const rotated = await fetch(`${base}/webhooks/${hookId}/rotate-secret`, { method: 'POST', headers: bearer(docstoreToken) });
    expect(rotated.status).toBe(200);
    const { secret: rotatedSecret } = (await rotated.json()) as { secret: string };
    await expectStatus(fetch(`${base}/tokens?token=${encodeURIComponent(docstoreToken)}`, {}), 401);

    // gateway: a message, a webhook with a custom header, a refused ?apikey=, the network's verification and a signed notification.
    const gw = { apikey: gatewayKey, version: '6.0', 'content-type': 'application/json' };
    await expectStatus(
      fetch(`${gateway}/api/Messages`, {
        method: 'POST',
        headers: gw,
        body: JSON.stringify({ messaging_product: 'whatsapp', to: '15550102030', type: 'text', text: { body: 'hi' } }),
      }),
      200,
    );
    await expectStatus(
      fetch(`${gateway}/api/Webhooks`, {
        method: 'POST',
        headers: gw,
        body: JSON.stringify({ phone: '15550109999', types: ['messages'], endpoint: 'https://127.0.0.1:9/hook', headers: { Authorization: headerValue } }),
      }),
      201,
    );
    await expectStatus(fetch(`${gateway}/api/Webhooks?apikey=${encodeURIComponent(gatewayKey)}`, { headers: { version: '6.0' } }), 401);
    await expectStatus(fetch(`${gateway}/network/notifications?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=42`), 200);
    await expectStatus(fetch(`${gateway}/network/notifications?hub.mode=subscribe&hub.verify_token=${verifyToken}x&hub.challenge=42`), 403);
    const notification = JSON.stringify({ object: 'whatsapp_business_account', entry: [] });
    const signature = `sha256=${createHmac('sha256', appSecret).update(notification).digest('hex')}`;
    await expectStatus(
      fetch(`${gateway}/network/notifications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        body: notification,
      }),
      200,
    );

    // ingest-push: a refused ?apiKey=, a sales upload with the key, and a push.
    await expectStatus(
      fetch(`${ingest}/DataInserterSales/api/sales?apiKey=${encodeURIComponent(salesKey)}`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: 'x',
      }),
      401,
    );
    await expectStatus(
      fetch(`${ingest}/api/pushm/bulk?token=${encodeURIComponent(pushToken)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      401,
    );
    const pushed = await fetch(`${ingest}/api/pushm/bulk`, {
      method: 'POST',
      headers: bearer(pushToken),
      body: JSON.stringify({ pushs: [{ nm_envio: 'leaks', nm_push: 'device-1', nm_mensagem: 'hello', nm_plataforma: 'ios' }] }),
    });
    expect(pushed.status).toBe(202);

    // Stop the apps so every buffered log line is written.
    for (const { child } of running.values()) {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    }
    running.clear();

    const logs = output.join('');
    const dump = await databaseText(databaseUrl);
    const keys = await redis.keys(`${prefix}*`);
    const values = await Promise.all(keys.map(async (key) => (await redis.dumpBuffer(key))?.toString('latin1') ?? ''));
    const redisText = `${keys.join('\n')}\n${values.join('\n')}`;

    expect(logs).toContain('"msg":"request completed"'); // the run did log its requests
    expect(dump).toContain(docstoreClient); // and wrote to the dumped database
    const secrets = { docstoreToken, gatewayKey, salesKey, pushToken, secret, rotatedSecret, verifyToken, appSecret, headerValue };
    const found = Object.entries(secrets).flatMap(([name, value]) =>
      [
        ['logs', logs],
        ['the database', dump],
        ['redis', redisText],
      ].flatMap(([where, text]) => ([value, secretPart(value)].some((v) => v && text.includes(v)) ? [`${name} in ${where}`] : [])),
    );
    expect(found).toEqual([]);
  }, 240_000);
});

/**
 * Every row of every table of the database, as text (what pg_dump --data-only holds), read over SQL: a pg_dump older
 * than the server (the system's 15 against the embedded 18) refuses to dump it, and the embedded distribution ships none.
 */
async function databaseText(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>(
      `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
    );
    const parts: string[] = [];
    for (const { name } of tables) {
      const { rows } = await client.query<{ row: string }>(`SELECT t::text AS row FROM ${name} t`);
      parts.push(`-- ${name}`, ...rows.map((r) => r.row));
    }
    return parts.join('\n');
  } finally {
    await client.end();
  }
}

/** The part after the id of `<prefix>_<id>_<secret>` or `<id>|<secret>`: the part that must never be stored. */
function secretPart(credential: string): string | undefined {
  const part = credential.split(/[|_]/).pop();
  return part && part.length >= 16 && part !== credential ? part : undefined;
}
