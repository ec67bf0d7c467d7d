import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateEncryptionKeys } from '@app/secrets';
import { eventually, FakeApns, FakeFcm, FakeWebPush, schemaText, TS_CHILD_PRELOAD } from '@app/testkit';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import webpush from 'web-push';
import { ROOT } from '../src/workspace';

const run = promisify(execFile);
const APPS = ['docstore', 'gateway', 'ingest-push'] as const;
type App = (typeof APPS)[number];

interface Running {
  child: ChildProcess;
  url: string;
}

/**
 * Issues 28 and 39: no credential sits readable. The three services run as processes (from source) on one
 * database, at trace level; a run uses a credential of every kind, refused ones included, and makes every audited
 * change that carries one (tokens and keys issued by command and by API, revoked; webhooks created, updated and
 * rotated; gateway webhook header values replaced; push settings; a customer erased). Then everything they logged,
 * every row of the database (schemaText, every schema) and every Redis key of their prefix (name and DUMP) are
 * searched for each credential, and none is found. The audit tables hold a record of each of those changes (so
 * the search covered them), and the erasure's record names the customer by a keyed hash only.
 * The push providers' credentials (FCM service account key and access tokens, APNs key and provider tokens, the
 * VAPID private key) are process settings, not account settings: they are searched as well, after real sends
 * through loopback fakes.
 */
describe('no credential in logs, the database or Redis', () => {
  const runId = `${process.env.TEST_RUN_ID ?? process.pid}`.replace(/\W/g, '_');
  const database = `t_${runId}_leaks`;
  const prefix = `test:${runId}:leaks:`;
  const verifyToken = `verify-${randomUUID()}`;
  const appSecret = `appsecret-${randomUUID()}`;
  const encryptionKeys = generateEncryptionKeys('leaks');
  const vapid = webpush.generateVAPIDKeys();
  const fcm = new FakeFcm();
  const apns = new FakeApns();
  const web = new FakeWebPush();
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
    ...(app === 'ingest-push' ? { ...fcm.settings(), ...apns.settings(), ...web.settings(vapid) } : {}),
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
    await Promise.all([fcm.start(), apns.start(), web.start()]);
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
    await Promise.all([fcm.stop(), apns.stop(), web.stop()]);
  });

  it('finds none of the credentials a full run used, and the audit tables record every change that carried one', async () => {
    const docstoreClient = randomUUID();
    const docstoreToken = await cli('docstore', ['token', '--client', docstoreClient, '--scopes', '*', '--name', 'leaks']);
    const accessToken = `EAAG${randomUUID().replace(/-/g, '')}`;
    const gatewayKey = await cli('gateway', [
      'apikey',
      '--phone',
      '15550109999',
      '--phone-id',
      '987654321',
      '--name',
      'leaks',
      '--access-token',
      accessToken,
      '--waba-id',
      '1234567890',
    ]);
    const salesKey = await cli('ingest-push', ['apikey', '--account', 'leaks', '--name', 'leaks']);
    const pushToken = await cli('ingest-push', ['push-token', '--account', 'leaks', '--name', 'leaks']);
    const headerValue = `Bearer receiver-${randomUUID()}`;
    const newHeaderValue = `Bearer receiver-${randomUUID()}`;
    for (const credential of [docstoreToken, gatewayKey, salesKey, pushToken]) expect(credential).toMatch(/\S{20,}/);

    const docstore = running.get('docstore')!.url;
    const gateway = running.get('gateway')!.url;
    const ingest = running.get('ingest-push')!.url;
    const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    const expectStatus = async (res: Promise<Response>, status: number) => expect((await res).status).toBe(status);
    /** The answer's JSON once its status is `status`. */
    const answer = async <T>(res: Promise<Response>, status: number): Promise<T> => {
      const done = await res;
      expect(done.status).toBe(status);
      return (await done.json()) as T;
    };

    // docstore: a document; a token minted through the API, changed and revoked; a webhook (its signing secret is in
    // the answer only), changed, and its secret rotated.
    const base = `${docstore}/api/v1/client/${docstoreClient}`;
    await expectStatus(
      fetch(`${base}/production/context/shop/type/product/k1`, {
        method: 'POST',
        headers: bearer(docstoreToken),
        body: JSON.stringify({ environment: 'production', context: 'shop', type: 'product', key: 'k1', data: { a: 1 } }),
      }),
      201,
    );
    const minted = await answer<{ token: string; token_details: { id: string } }>(
      fetch(`${base}/tokens`, { method: 'POST', headers: bearer(docstoreToken), body: JSON.stringify({ name: 'api-made', scopes: ['document:read'] }) }),
      201,
    );
    const apiToken = minted.token;
    await expectStatus(
      fetch(`${base}/tokens/${minted.token_details.id}`, { method: 'PUT', headers: bearer(docstoreToken), body: JSON.stringify({ name: 'api-renamed' }) }),
      200,
    );
    await expectStatus(fetch(`${base}/tokens/${minted.token_details.id}`, { method: 'DELETE', headers: bearer(docstoreToken) }), 204);
    const { id: hookId, secret } = await answer<{ id: string; secret: string }>(
      fetch(`${base}/webhooks`, {
        method: 'POST',
        headers: bearer(docstoreToken),
        body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['document.updated'] }),
      }),
      201,
    );
    await expectStatus(
      fetch(`${base}/webhooks/${hookId}`, { method: 'PUT', headers: bearer(docstoreToken), body: JSON.stringify({ url: 'http://127.0.0.1:9/hook-2' }) }),
      200,
    );
    const { secret: rotatedSecret } = await answer<{ secret: string }>(
      fetch(`${base}/webhooks/${hookId}/rotate-secret`, { method: 'POST', headers: bearer(docstoreToken) }),
      200,
    );
    await expectStatus(fetch(`${base}/tokens?token=${encodeURIComponent(docstoreToken)}`, {}), 401);

    // gateway: a message, a webhook with a custom header whose value is then replaced, a refused ?apikey=, the
    // network's verification and a signed notification.
    const gw = { apikey: gatewayKey, version: '6.0', 'content-type': 'application/json' };
    // The sandbox's customer writes first: free-form messages need the contact's service window open.
    await expectStatus(
      fetch(`${gateway}/api/Sandbox/Inbound`, {
        method: 'POST',
        headers: gw,
        body: JSON.stringify({ from: '15550102030', type: 'text', text: { body: 'hello' } }),
      }),
      200,
    );
    await expectStatus(
      fetch(`${gateway}/api/Messages`, {
        method: 'POST',
        headers: gw,
        body: JSON.stringify({ messaging_product: 'whatsapp', to: '15550102030', type: 'text', text: { body: 'hi' } }),
      }),
      200,
    );
    const { id: gatewayHookId } = await answer<{ id: string }>(
      fetch(`${gateway}/api/Webhooks`, {
        method: 'POST',
        headers: gw,
        body: JSON.stringify({ phone: '15550109999', types: ['messages'], endpoint: 'https://127.0.0.1:9/hook', headers: { Authorization: headerValue } }),
      }),
      201,
    );
    await expectStatus(
      fetch(`${gateway}/api/Webhooks/${gatewayHookId}`, { method: 'PUT', headers: gw, body: JSON.stringify({ headers: { Authorization: newHeaderValue } }) }),
      200,
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

    // ingest-push: a refused ?apiKey=, a refused ?token=, a push to each platform through the providers (their
    // credentials in use), the account's push settings, and a customer's erasure.
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
    const item = (nm_plataforma: string, nm_push: string) => ({ nm_envio: 'leaks', nm_push, nm_mensagem: 'hello', nm_plataforma });
    await expectStatus(
      fetch(`${ingest}/api/pushm/bulk`, {
        method: 'POST',
        headers: bearer(pushToken),
        body: JSON.stringify({
          pushs: [item('android', 'device-a'), item('ios', 'device-1'), item('web', JSON.stringify(web.subscribe('browser-1')))],
        }),
      }),
      202,
    );
    await eventually(() => (fcm.received.length > 0 && apns.received.length > 0 && web.received.length > 0) || undefined, {
      what: 'a push through each provider',
      timeoutMs: 60_000,
    });
    expect(web.problems).toEqual([]);
    await expectStatus(
      fetch(`${ingest}/api/pushm/settings`, {
        method: 'PUT',
        headers: bearer(pushToken),
        body: JSON.stringify({ cap_max_pushes: 5, cap_window_hours: 24, quiet_start: '22:00', quiet_end: '08:00' }),
      }),
      200,
    );
    const cpf = '529.982.247-25';
    await expectStatus(
      fetch(`${ingest}/DataInserterSales/api/sales/customers/${encodeURIComponent(cpf)}`, { method: 'DELETE', headers: { apiKey: salesKey } }),
      200,
    );

    // Stop the apps so every buffered log line is written.
    for (const { child } of running.values()) {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    }
    running.clear();

    const logs = output.join('');
    const dump = await schemaText(databaseUrl);
    const keys = await redis.keys(`${prefix}*`);
    const values = await Promise.all(keys.map(async (key) => (await redis.dumpBuffer(key))?.toString('latin1') ?? ''));
    const redisText = `${keys.join('\n')}\n${values.join('\n')}`;

    expect(logs).toContain('"msg":"request completed"'); // the run did log its requests
    expect(dump).toContain(docstoreClient); // and wrote to the dumped database
    const audit = await auditRows(databaseUrl);
    expect(new Set(audit.map((r) => `${r.schema} ${r.action}`))).toEqual(
      new Set([
        'docstore token.created',
        'docstore token.updated',
        'docstore token.revoked',
        'docstore webhook.created',
        'docstore webhook.updated',
        'docstore webhook.rotated',
        'gateway api_key.created',
        'gateway webhook.created',
        'gateway webhook.updated',
        'ingest_push api_key.created',
        'ingest_push push_token.created',
        'ingest_push push_settings.updated',
        'ingest_push customer.erased',
      ]),
    );
    expect(audit.filter((r) => r.schema === 'docstore' && r.action === 'token.created')).toHaveLength(2); // the command's and the API's
    // The erasure names the customer by a keyed hash (HMAC-SHA-256), never by the CPF, in any writing.
    const erasure = audit.find((r) => r.action === 'customer.erased')!;
    expect(erasure.target_id).toMatch(/^[0-9a-f]{64}$/);
    const auditText = audit.map((r) => r.row).join('\n');
    for (const writing of [cpf, '52998224725']) expect(auditText).not.toContain(writing);

    const secrets = {
      docstoreToken,
      apiToken,
      gatewayKey,
      accessToken,
      salesKey,
      pushToken,
      secret,
      rotatedSecret,
      verifyToken,
      appSecret,
      headerValue,
      newHeaderValue,
      vapidPrivateKey: vapid.privateKey,
      fcmPrivateKey: keyBody(JSON.parse(readFileSync(fcm.serviceAccountFile, 'utf8')).private_key as string),
      apnsPrivateKey: keyBody(readFileSync(apns.keyFile, 'utf8')),
      ...Object.fromEntries(fcm.tokensIssued.map((token, i) => [`fcmAccessToken${i}`, token])),
      ...Object.fromEntries([...apns.providerTokens].map((token, i) => [`apnsProviderToken${i}`, token])),
    };
    expect(fcm.tokensIssued.length).toBeGreaterThan(0);
    expect(apns.providerTokens.size).toBeGreaterThan(0);
    const found = Object.entries(secrets).flatMap(([name, value]) =>
      [
        ['logs', logs],
        ['the database', dump],
        ['the audit rows', auditText],
        ['redis', redisText],
      ].flatMap(([where, text]) => ([value, secretPart(value)].some((v) => v && text.includes(v)) ? [`${name} in ${where}`] : [])),
    );
    expect(found).toEqual([]);
  }, 240_000);
});

/** Every audit record of the three services, each with its row as text. */
async function auditRows(url: string): Promise<Array<{ schema: string; action: string; target_id: string; row: string }>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const parts = ['docstore', 'gateway', 'ingest_push'].map(
      (schema) => `SELECT '${schema}' AS schema, action, target_id, a::text AS row FROM ${schema}.audit_log a`,
    );
    return (await client.query<{ schema: string; action: string; target_id: string; row: string }>(parts.join(' UNION ALL '))).rows;
  } finally {
    await client.end();
  }
}

/** A PEM key's base64 body on one line, less its first and last lines' worth: a part that only that key holds. */
function keyBody(pem: string): string {
  return pem
    .replace(/-----[^-]+-----/g, '')
    .replace(/\s/g, '')
    .slice(64, 128);
}

/** The part after the id of `<prefix>_<id>_<secret>` or `<id>|<secret>`: the part that must never be stored. */
function secretPart(credential: string): string | undefined {
  const part = credential.split(/[|_]/).pop();
  return part && part.length >= 16 && part !== credential ? part : undefined;
}
