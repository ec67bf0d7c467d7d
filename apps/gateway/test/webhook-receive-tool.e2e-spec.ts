import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Module, type Type } from '@nestjs/common';
import { createTestApp, eventually, startReceiveTool, type ReceiveTool } from '@app/testkit';
import { gatewayModule } from '../src/app.module';
import { request, text, withPhones, type Gateway } from './support/gateway-test';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '../../..');
// By path, its pieces apart: Nx's graph would otherwise count tools (and its dev packages) in the app's image.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const start = require(join(ROOT, 'tools', 'start.js')) as {
  appEnvironment(app: string, base: NodeJS.ProcessEnv, caFile?: string, tell?: (line: string) => void): NodeJS.ProcessEnv;
};

// eslint-disable-next-line @typescript-eslint/no-require-imports
const localCa = require(join(ROOT, 'tools', 'local-ca.js')) as { makeCa(name: string, days: number): { key: string; cert: string } };

/**
 * `npm run webhook:receive -- --https` (tools/webhook-receive.js): an https receiver whose
 * certificate comes from a local CA, and `npm start` giving the gateway that CA to trust.
 */
describe('webhook:receive --https with the gateway', () => {
  const caDir = mkdtempSync(join(tmpdir(), 'webhook-ca-'));
  const caFile = join(caDir, 'ca.crt');
  let receiver: ReceiveTool;

  beforeAll(async () => {
    receiver = await startReceiveTool(['--https', '--ca-dir', caDir]);
  });
  afterAll(async () => {
    await receiver.stop();
    rmSync(caDir, { recursive: true, force: true });
  });

  it('serves https on loopback with a certificate of its CA, and says how to trust it', async () => {
    expect(receiver.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/hook$/);
    expect(readFileSync(caFile, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
    // The tool writes that line after the one the start waits for.
    await eventually(() => Promise.resolve(receiver.stderr.includes(`NODE_EXTRA_CA_CERTS=${caFile}`) ? true : undefined));
  });

  it("prints the gateway's deliveries (unsigned, with the webhook's custom headers) when the gateway trusts that CA", async () => {
    @Module({ imports: [gatewayModule({ trustedCertificates: [readFileSync(caFile, 'utf8')] })] })
    class TrustingLocalCa {}
    const gw: Gateway = withPhones(
      await createTestApp(TrustingLocalCa as Type, {
        SANDBOX_STATUS_DELAY_MS: '50',
        WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
        GATEWAY_SERVICE_WINDOW: 'off',
        WEBHOOK_RELAY_INTERVAL_MS: '50',
        WEBHOOK_CACHE_SECONDS: '0',
      }),
    );
    try {
      const phone = await gw.newPhone();
      await request(gw.http)
        .post('/api/Webhooks')
        .set(phone.headers)
        .send({ phone: phone.phone, types: ['messages'], endpoint: receiver.url, headers: { Authorization: 'Bearer from-gateway' } })
        .expect(201);
      const sent = await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200);
      const printed = await receiver.deliveries(1);
      expect(printed[0]).toContain('  authorization: Bearer from-gateway\n');
      expect(printed[0]).toContain('  signature: none (unsigned: the gateway signs nothing; check the custom headers it sends)\n');
      expect(printed[0]).toContain(`"id": "${sent.body.messages[0].id}"`);
    } finally {
      await gw.close();
    }
  });

  it('npm start gives the gateway alone the local CA, when it exists', () => {
    expect(start.appEnvironment('gateway', { PORT: '1' }, caFile)).toEqual({ PORT: '1', NODE_EXTRA_CA_CERTS: caFile });
    expect(start.appEnvironment('docstore', { PORT: '1' }, caFile)).toEqual({ PORT: '1' });
    expect(start.appEnvironment('gateway', { PORT: '1' }, join(caDir, 'missing.crt'))).toEqual({ PORT: '1' });
    expect(start.appEnvironment('docstore', { NODE_EXTRA_CA_CERTS: '/etc/mine.crt' }, caFile)).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/mine.crt' });
    // One REDIS_PREFIX given to `npm start` becomes one per app, so the two webhook queues never share a name.
    expect(start.appEnvironment('docstore', { REDIS_PREFIX: 'mine:' }, caFile)).toEqual({ REDIS_PREFIX: 'mine:docstore:' });
    expect(start.appEnvironment('gateway', { REDIS_PREFIX: 'mine:' }, join(caDir, 'missing.crt'))).toEqual({ REDIS_PREFIX: 'mine:gateway:' });
  });

  it('with that environment a Node process trusts the receiver; without it, it refuses the certificate', async () => {
    const probe = `fetch(${JSON.stringify(receiver.url)}, { method: 'POST', body: '{}' }).then((r) => console.log(r.status), (e) => console.log(e.cause?.code ?? e.message))`;
    const run = async (env: NodeJS.ProcessEnv) => (await promisify(execFile)(process.execPath, ['-e', probe], { env })).stdout.trim();
    const base = { PATH: process.env.PATH };
    expect(await run(start.appEnvironment('gateway', base, caFile))).toBe('200');
    expect(await run(base)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('with NODE_EXTRA_CA_CERTS already set, the gateway trusts both that bundle and the local CA, and npm start says so', async () => {
    const probe = `fetch(${JSON.stringify(receiver.url)}, { method: 'POST', body: '{}' }).then((r) => console.log(r.status), (e) => console.log(e.cause?.code ?? e.message))`;
    const run = async (env: NodeJS.ProcessEnv) => (await promisify(execFile)(process.execPath, ['-e', probe], { env })).stdout.trim();
    const mine = join(caDir, 'mine.pem');
    // The user's own bundle: another CA (a corporate proxy's, say).
    writeFileSync(mine, `# the user's own CAs\n${localCa.makeCa('another CA', 2).cert}`);
    const told: string[] = [];
    const env = start.appEnvironment('gateway', { PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: mine }, caFile, (line) => told.push(line));
    expect(env.NODE_EXTRA_CA_CERTS).not.toBe(mine);
    const trusted = readFileSync(env.NODE_EXTRA_CA_CERTS!, 'utf8');
    expect(trusted).toContain("# the user's own CAs");
    expect(trusted).toContain(readFileSync(caFile, 'utf8'));
    expect(told.join('\n')).toContain(`NODE_EXTRA_CA_CERTS=${mine} and the local webhook CA combined`);
    expect(await run(env)).toBe('200');
    // A bundle it cannot read is said aloud, and the local CA is still trusted.
    const missing = start.appEnvironment('gateway', { PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: join(caDir, 'nope.pem') }, caFile, (line) =>
      told.push(line),
    );
    expect(missing.NODE_EXTRA_CA_CERTS).toBe(caFile);
    expect(told.at(-1)).toMatch(/^WARNING: NODE_EXTRA_CA_CERTS=.*nope\.pem cannot be read/);
  });
});
