import { join } from 'node:path';
import { eventually, startReceiveTool, type ReceiveTool } from '@app/testkit';
import { generateWebhookSecret, signedHeaders } from '@app/webhooks';
import { docBody, request, type Client, type Docstore, useDocstore } from './support/docstore-test';

jest.setTimeout(30_000);

const ROOT = join(__dirname, '../../..');

// By path, its pieces apart: Nx's graph would otherwise count tools (and its dev packages) in the app's image.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tool = require(join(ROOT, 'tools', 'webhook-receive.js')) as {
  checkSignature(secret: string, headers: Record<string, string>, body: string, now: number): string;
};

/**
 * `npm run webhook:receive -- --secret <secret>` (tools/webhook-receive.js) receiving the
 * docstore's real deliveries on loopback: it prints each one and checks its signature.
 */
describe('webhook:receive with the docstore', () => {
  let ds: Docstore;
  let c: Client;
  let receiver: ReceiveTool | undefined;
  useDocstore(
    { app: (d) => (ds = d), client: (x) => (c = x) },
    { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', WEBHOOK_RELAY_INTERVAL_MS: '100', WEBHOOK_CACHE_SECONDS: '0' },
  );
  afterEach(() => receiver?.stop());

  /** A webhook whose url is the receiver's (registered first, to learn its secret), with the receiver started with `secretOf`. */
  const hookedTo = async (secretOf: (secret: string) => string[]) => {
    const base = `/api/v1/client/${c.id}/webhooks`;
    const created = await request(ds.http)
      .post(base)
      .set(c.auth)
      .send({ url: 'http://127.0.0.1:9/hook', events: ['document.created'] })
      .expect(201);
    receiver = await startReceiveTool(secretOf(created.body.secret));
    await request(ds.http).put(`${base}/${created.body.id}`).set(c.auth).send({ url: receiver.url }).expect(200);
    return { id: created.body.id as string, secret: created.body.secret as string, base };
  };

  it('prints a delivery with its headers and body, checks its signature valid, and answers 200', async () => {
    const hook = await hookedTo((secret) => ['--secret', secret]);
    expect(receiver!.stderr).toContain('WEBHOOK_ALLOWED_TARGETS=127.0.0.1');
    await request(ds.http)
      .post(`${c.doc()}/sku-1`)
      .set(c.auth)
      .send(docBody('sku-1', { price: 10 }))
      .expect(201);
    const [printed] = await receiver!.deliveries(1);
    expect(printed).toMatch(/^#1 \d{4}-\d\d-\d\dT[\d:.]+Z POST \/hook\n/);
    expect(printed).toMatch(/^ {2}webhook-id: \S+$/m);
    expect(printed).toMatch(/^ {2}webhook-signature: v1,\S+$/m);
    expect(printed).toContain('  content-type: application/json');
    expect(printed).toContain('  signature: valid\n');
    expect(printed).toContain('"sku-1"');
    expect(printed).toContain('"document.created"');
    // The docstore saw its 200: the delivery succeeded.
    const log = await eventually(async () => {
      const res = await request(ds.http).get(`${hook.base}/${hook.id}/deliveries`).set(c.auth).expect(200);
      return res.body.data.find((d: { status: string }) => d.status === 'succeeded');
    });
    expect(log).toMatchObject({ status: 'succeeded', response_status: 200 });
  });

  it('says INVALID for the wrong secret, and "not checked" without one', async () => {
    await hookedTo(() => ['--secret', generateWebhookSecret()]);
    await request(ds.http)
      .post(`${c.doc()}/sku-2`)
      .set(c.auth)
      .send(docBody('sku-2', { price: 1 }))
      .expect(201);
    expect((await receiver!.deliveries(1))[0]).toContain('  signature: INVALID: no signature matches this secret');
    await receiver!.stop();

    await hookedTo(() => []);
    await request(ds.http)
      .post(`${c.doc()}/sku-3`)
      .set(c.auth)
      .send(docBody('sku-3', { price: 1 }))
      .expect(201);
    expect((await receiver!.deliveries(1))[0]).toContain("  signature: not checked (pass --secret <the webhook's whsec_ secret>)");
  });

  it('checks signatures exactly as libs/webhooks makes them: rotation, a changed body, an old timestamp', () => {
    const [secret, old] = [generateWebhookSecret(), generateWebhookSecret()];
    const now = 1_760_000_000;
    const body = '{"event":"document.created"}';
    expect(tool.checkSignature(secret, signedHeaders([secret], 'evt_1', now, body), body, now)).toBe('valid');
    expect(tool.checkSignature(secret, signedHeaders([old, secret], 'evt_1', now, body), body, now + 10)).toBe('valid');
    expect(tool.checkSignature(secret, signedHeaders([secret], 'evt_1', now, body), '{"event":"x"}', now)).toMatch(/^INVALID: no signature matches/);
    expect(tool.checkSignature(secret, signedHeaders([secret], 'evt_1', now, body), body, now + 301)).toMatch(
      /^INVALID: webhook-timestamp \d+ is more than 300 s from now$/,
    );
    expect(tool.checkSignature(secret, {}, body, now)).toMatch(/^INVALID: no webhook-id/);
  });
});
