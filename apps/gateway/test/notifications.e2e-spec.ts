import 'reflect-metadata';
import { Module, type Type } from '@nestjs/common';
import { Sql } from '@app/database';
import { SecretCipher } from '@app/secrets';
import { createTestApp, eventually, makeCertificates, startWebhookReceiver, type WebhookReceiver } from '@app/testkit';
import { WebhookMaintenance } from '@app/webhooks';
import { gatewayModule } from '../src/app.module';
import { request, text, withPhones, type Gateway, type Phone } from './support/gateway-test';

/**
 * The sandbox end to end: a send, then sent, delivered and read arrive at a registered
 * https webhook (certificate verified against the test's own CA) in the network's
 * notification shape with the webhook's custom headers; templates and the undeliverable
 * pattern likewise. A self-signed receiver gets nothing.
 */
describe('notifications to registered webhooks (sandbox, https)', () => {
  const certs = makeCertificates();
  let gw: Gateway;
  let receiver: WebhookReceiver;
  let phone: Phone;

  beforeAll(async () => {
    @Module({ imports: [gatewayModule({ trustedCertificates: [certs.ca] })] })
    class TrustingTestCa {}
    gw = withPhones(
      await createTestApp(TrustingTestCa as Type, {
        SANDBOX_STATUS_DELAY_MS: '50',
        SANDBOX_REVIEW_DELAY_MS: '50',
        WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
        GATEWAY_SERVICE_WINDOW: 'off',
        WEBHOOK_TYPES: 'messages,message_template_status_update',
        WEBHOOK_RELAY_INTERVAL_MS: '50',
        WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
        WEBHOOK_CACHE_SECONDS: '0',
      }),
    );
    receiver = await startWebhookReceiver({ tls: certs.signed });
  });
  afterAll(async () => {
    await gw.close();
    await receiver.close();
  });
  beforeEach(async () => {
    phone = await gw.newPhone();
  });

  const register = (types: string[], endpoint = receiver.url) =>
    request(gw.http)
      .post('/api/Webhooks')
      .set(phone.headers)
      .send({ phone: phone.phone, types, endpoint, headers: { Authorization: 'Bearer receiver-secret', 'X-Shop': 'north' } })
      .expect(201);
  const statusesOf = (id: string) => (call: { json?: { entry?: { changes?: { value?: { statuses?: { id: string }[] } }[] }[] } }) =>
    call.json?.entry?.[0]?.changes?.[0]?.value?.statuses?.[0]?.id === id;

  it('delivers sent, delivered and read in the network shape, with pricing and conversation, and the custom headers', async () => {
    await register(['messages']);
    const { body } = await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200);
    const id = body.messages[0].id;
    const calls = await receiver.waitFor(3, statusesOf(id));
    const statuses = calls.map((c) => c.json.entry[0].changes[0].value.statuses[0]);
    expect(statuses.map((s: { status: string }) => s.status).sort()).toEqual(['delivered', 'read', 'sent']);
    expect(calls[0].json).toEqual({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: expect.any(String),
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: phone.phone, phone_number_id: phone.phoneId },
                statuses: [
                  {
                    id,
                    status: expect.any(String),
                    timestamp: expect.stringMatching(/^\d+$/),
                    recipient_id: '15550102030',
                    // A free-form message: a free customer-service message in the sandbox's price table.
                    conversation: expect.objectContaining({ id: expect.stringMatching(/^[0-9a-f]{32}$/), origin: { type: 'service' } }),
                    pricing: { billable: false, pricing_model: 'PMP', category: 'service', type: 'free_customer_service' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    for (const call of calls)
      expect(call.headers).toMatchObject({ authorization: 'Bearer receiver-secret', 'x-shop': 'north', 'content-type': 'application/json' });
  });

  const storedHeaders = async (id: string) =>
    (await gw.get(Sql).one<{ headers: Record<string, string>; row: string }>(`SELECT headers, w::text AS row FROM gateway.webhooks w WHERE id = $1`, [id]))!;

  it('keeps the custom header values encrypted at rest, and shows and sends them as set', async () => {
    const { body: hook } = await register(['messages']);
    const row = await storedHeaders(hook.id);
    expect(row.row).not.toContain('receiver-secret');
    expect(row.row).not.toContain('north');
    expect(Object.keys(row.headers).sort()).toEqual(['Authorization', 'X-Shop']);
    for (const value of Object.values(row.headers)) expect(value).toMatch(/^enc1:[\w-]+:/);
    const listed = await request(gw.http).get('/api/Webhooks').set(phone.headers).expect(200);
    expect(listed.body.webhooks[0].headers).toEqual({ Authorization: 'Bearer receiver-secret', 'X-Shop': 'north' });
    const { body } = await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200);
    const [call] = await receiver.waitFor(1, statusesOf(body.messages[0].id));
    expect(call.headers).toMatchObject({ authorization: 'Bearer receiver-secret', 'x-shop': 'north' });
  });

  it('encrypts header values stored in plain text before encryption at rest, and still sends them', async () => {
    const { body: hook } = await register(['messages']);
    // A row as an earlier version stored it.
    await gw.get(Sql).rows(`UPDATE gateway.webhooks SET headers = $2 WHERE id = $1`, [hook.id, { Authorization: 'Bearer receiver-secret', 'X-Shop': 'north' }]);
    expect(await gw.get(WebhookMaintenance).reencryptSecrets()).toBeGreaterThanOrEqual(1);
    const row = await storedHeaders(hook.id);
    expect(row.row).not.toContain('receiver-secret');
    expect(gw.get(SecretCipher).decrypt(row.headers.Authorization)).toBe('Bearer receiver-secret');
    const { body } = await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200);
    const [call] = await receiver.waitFor(1, statusesOf(body.messages[0].id));
    expect(call.headers).toMatchObject({ authorization: 'Bearer receiver-secret', 'x-shop': 'north' });
  });

  it('delivers a failed status with the undeliverable error for a number ending in 0000', async () => {
    await register(['messages']);
    const { body } = await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550100000')).expect(200);
    const [call] = await receiver.waitFor(1, statusesOf(body.messages[0].id));
    expect(call.json.entry[0].changes[0].value.statuses[0]).toMatchObject({ status: 'failed', errors: [{ code: 131026, title: 'Message undeliverable' }] });
  });

  it('delivers the template review (PENDING, then APPROVED) to a webhook of that type', async () => {
    await register(['message_template_status_update']);
    const created = await request(gw.http)
      .post('/api/Templates')
      .set(phone.headers)
      .send({ name: 'order_ready', category: 'UTILITY', language: 'en_US', components: [{ type: 'BODY', text: 'Your order is ready.' }] })
      .expect(201);
    expect(created.body.status).toBe('PENDING');
    const [call] = await receiver.waitFor(1, (c) => c.json?.entry?.[0]?.changes?.[0]?.value?.message_template_id === created.body.id);
    expect(call.json.entry[0].changes[0]).toEqual({
      field: 'message_template_status_update',
      value: {
        event: 'APPROVED',
        message_template_id: created.body.id,
        message_template_name: 'order_ready',
        message_template_language: 'en_US',
        reason: 'NONE',
      },
    });
  });

  it('sends nothing to a webhook of another phone, nor to one whose certificate signed itself', async () => {
    const selfSigned = await startWebhookReceiver({ tls: certs.selfSigned });
    try {
      const { body: mine } = await register(['messages'], selfSigned.url);
      const other = await gw.newPhone();
      const { body: theirs } = await request(gw.http)
        .post('/api/Webhooks')
        .set(other.headers)
        .send({ types: ['messages'], endpoint: receiver.url })
        .expect(201);
      const { body } = await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200);
      const deliveries = (hook: string, p: Phone) => request(gw.http).get(`/api/Webhooks/${hook}/deliveries`).set(p.headers).expect(200);
      // The events that would carry it: sent, delivered and read, each fanned out and tried once (and refused by TLS) at the phone's own webhook.
      const tried = await eventually(async () => {
        const { body: log } = await deliveries(mine.id, phone);
        return log.data.length === 3 && log.data.every((d: { attempts: number; error: string | null }) => d.attempts >= 1 && d.error) ? log.data : undefined;
      });
      expect(tried.map((d: { error: string }) => d.error)).toEqual(Array.from({ length: 3 }, () => expect.stringMatching(/certificate/i)));
      // The same fan-out made no delivery for the other phone's webhook, so nothing could reach the receiver.
      expect((await deliveries(theirs.id, other)).body.data).toEqual([]);
      expect(receiver.calls.filter(statusesOf(body.messages[0].id))).toEqual([]);
      expect(selfSigned.calls).toEqual([]);
    } finally {
      await selfSigned.close();
    }
  });
});
