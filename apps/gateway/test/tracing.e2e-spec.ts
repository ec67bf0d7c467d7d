import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { generateEncryptionKeys } from '@app/secrets';
import {
  makeCertificates,
  rootOfOneTree,
  startChildApp,
  startOtlpReceiver,
  startWebhookReceiver,
  waitForTrace,
  type ChildApp,
  type OtlpReceiver,
  type WebhookReceiver,
} from '@app/testkit';
import { request, startGateway, text, type Phone } from './support/gateway-test';

jest.setTimeout(120_000);

const MAIN = join(__dirname, '../src/main.ts');

/** Issue 39, traces: one gateway send is one trace, down to the POST of its status notification. */
describe('traces from a gateway send to its status webhook', () => {
  const certs = makeCertificates();
  const caFile = `/tmp/gateway-traces-ca-${process.pid}.pem`;
  const env = {
    ENCRYPTION_KEYS: process.env.ENCRYPTION_KEYS || generateEncryptionKeys('test'),
    REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:gw-traces-${randomUUID().slice(0, 8)}:`,
    SANDBOX_STATUS_DELAY_MS: '20',
    MEDIA_DIR: `/tmp/gateway-test-media-${process.pid}`,
    WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
    GATEWAY_SERVICE_WINDOW: 'off',
    WEBHOOK_RELAY_INTERVAL_MS: '50',
    WEBHOOK_CACHE_SECONDS: '0',
  };
  let otlp: OtlpReceiver;
  let receiver: WebhookReceiver;
  let phone: Phone;
  let app: ChildApp | undefined;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    receiver = await startWebhookReceiver({ tls: certs.signed });
    writeFileSync(caFile, certs.ca);
    // The phone, its key and its webhook, made through an in-process app that is closed again.
    const gw = await startGateway(env, { trustedCertificates: [certs.ca] });
    try {
      phone = await gw.newPhone();
      await request(gw.http)
        .post('/api/Webhooks')
        .set(phone.headers)
        .send({ phone: phone.phone, types: ['messages'], endpoint: receiver.url })
        .expect(201);
    } finally {
      await gw.close();
    }
  });
  afterAll(async () => {
    await app?.stop();
    await receiver.close();
    await otlp.close();
  });

  it('the send, its SQL, the notification job and its POST are one trace; the receiver sees its traceparent', async () => {
    app = await startChildApp(MAIN, 'gateway', {
      ...env,
      // The receiver's test CA, as an operator adds a private CA (the deliveries use Node's trust store).
      NODE_EXTRA_CA_CERTS: caFile,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    const res = await fetch(`${app.url}/api/Messages`, {
      method: 'POST',
      headers: { ...phone.headers, 'content-type': 'application/json' },
      body: JSON.stringify(text('15550102030')),
    });
    expect(res.status).toBe(200);
    const [call] = await receiver.waitFor(1, (c) => JSON.stringify(c.json).includes('"statuses"'));
    const traceparent = String(call.headers.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = traceparent.split('-')[1];
    const spans = await waitForTrace(otlp, traceId, { method: 'POST', job: 'webhook-delivery process', work: 'webhook deliver' });
    expect(rootOfOneTree(spans)).toHaveLength(1);
    expect(rootOfOneTree(spans)[0].attributes['http.route']).toBe('/api/Messages');
    expect(spans.every((s) => s.service === 'gateway')).toBe(true);
  });
});
