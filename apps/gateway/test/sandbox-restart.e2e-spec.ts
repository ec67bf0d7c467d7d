import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Module, type Type } from '@nestjs/common';
import { Sql } from '@app/database';
import { createTestApp, makeCertificates, startWebhookReceiver, type ReceivedCall, type WebhookReceiver } from '@app/testkit';
import { gatewayModule } from '../src/app.module';
import { request, text, withPhones, type Gateway, type Phone } from './support/gateway-test';

/**
 * The sandbox's pending steps survive a restart: one instance sends and creates templates,
 * stops before any step is due, and two replicas booting on the same database play what
 * is left, from the recorded times, each notification arriving once.
 */
describe('sandbox statuses and reviews across a restart (two replicas resume)', () => {
  const certs = makeCertificates();
  let receiver: WebhookReceiver;
  const open: Gateway[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ tls: certs.signed });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((gw) => gw.close()));
  });
  afterAll(() => receiver.close());

  // Replicas share the database (the worker's) and the Redis prefix, as pods of one deployment do.
  const prefix = `test:${process.env.TEST_RUN_ID}:restart-${randomUUID().slice(0, 8)}:`;
  const boot = async (delays: { status: number; review: number }): Promise<Gateway> => {
    @Module({ imports: [gatewayModule({ trustedCertificates: [certs.ca] })] })
    class TrustingTestCa {}
    const gw = withPhones(
      await createTestApp(TrustingTestCa as Type, {
        REDIS_PREFIX: prefix,
        SANDBOX_STATUS_DELAY_MS: String(delays.status),
        SANDBOX_REVIEW_DELAY_MS: String(delays.review),
        WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
        GATEWAY_SERVICE_WINDOW: 'off',
        WEBHOOK_TYPES: 'messages,message_template_status_update',
        WEBHOOK_RELAY_INTERVAL_MS: '50',
        WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
        WEBHOOK_CACHE_SECONDS: '0',
      }),
    );
    open.push(gw);
    return gw;
  };
  const stop = async (gw: Gateway) => {
    open.splice(open.indexOf(gw), 1);
    await gw.close();
  };

  const statusOf = (call: ReceivedCall): { id: string; status: string } | undefined => call.json?.entry?.[0]?.changes?.[0]?.value?.statuses?.[0];
  const reviewOf = (call: ReceivedCall): { message_template_id: string; event: string; reason: string } | undefined =>
    call.json?.entry?.[0]?.changes?.[0]?.field === 'message_template_status_update' ? call.json.entry[0].changes[0].value : undefined;
  const statusCalls = (id: string) => receiver.calls.filter((c) => statusOf(c)?.id === id);
  const reviewCalls = (id: string) => receiver.calls.filter((c) => reviewOf(c)?.message_template_id === id);
  const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** One phone with a webhook, a deliverable and an undeliverable message, an approvable and a rejectable template. */
  const startWork = async (gw: Gateway) => {
    const phone: Phone = await gw.newPhone();
    await request(gw.http)
      .post('/api/Webhooks')
      .set(phone.headers)
      .send({ phone: phone.phone, types: ['messages', 'message_template_status_update'], endpoint: receiver.url })
      .expect(201);
    const sentAt = Date.now();
    const delivered = (await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200)).body.messages[0].id as string;
    const failed = (await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550100000')).expect(200)).body.messages[0].id as string;
    const template = (body: string, name: string) =>
      request(gw.http)
        .post('/api/Templates')
        .set(phone.headers)
        .send({
          name,
          category: 'UTILITY',
          language: 'en_US',
          components: [{ type: 'BODY', text: body, ...(body.includes('{{') ? { example: { body_text: [['Ann', 'Bo']] } } : {}) }],
        })
        .expect(201);
    const approved = (await template('Your order is ready.', 'order_ready')).body.id as string;
    const rejected = (await template('Hi {{1}} {{2}}', 'two_side_by_side')).body.id as string;
    return { phone, sentAt, delivered, failed, approved, rejected };
  };

  const expectPlayedOnce = async (work: Awaited<ReturnType<typeof startWork>>, gw: Gateway) => {
    await receiver.waitFor(3, (c) => statusOf(c)?.id === work.delivered);
    await receiver.waitFor(1, (c) => statusOf(c)?.id === work.failed);
    await receiver.waitFor(1, (c) => reviewOf(c)?.message_template_id === work.approved);
    await receiver.waitFor(1, (c) => reviewOf(c)?.message_template_id === work.rejected);
    // Time for a second replica's duplicate, were there one.
    await settle(1500);
    expect(
      statusCalls(work.delivered)
        .map((c) => statusOf(c)!.status)
        .sort(),
    ).toEqual(['delivered', 'read', 'sent']);
    expect(statusCalls(work.failed).map((c) => statusOf(c)!.status)).toEqual(['failed']);
    expect(reviewCalls(work.approved).map((c) => reviewOf(c)!.event)).toEqual(['APPROVED']);
    expect(reviewCalls(work.rejected).map((c) => [reviewOf(c)!.event, reviewOf(c)!.reason])).toEqual([['REJECTED', 'INVALID_FORMAT']]);
    const history = await request(gw.http).get(`/api/Messages/${work.delivered}`).set(work.phone.headers).expect(200);
    expect(history.body.statuses.map((s: { status: string }) => s.status)).toEqual(['accepted', 'sent', 'delivered', 'read']);
    expect((await request(gw.http).get(`/api/Templates/${work.approved}`).set(work.phone.headers).expect(200)).body.status).toBe('APPROVED');
  };

  it('plays the remaining steps at their recorded times once two replicas boot, each notification once', async () => {
    const delays = { status: 1500, review: 2500 };
    // Delays so long that no step is due before the stop, however slow the machine.
    const first = await boot({ status: 60_000, review: 60_000 });
    const work = await startWork(first);
    await stop(first);
    expect(statusCalls(work.delivered)).toEqual([]);
    expect(reviewCalls(work.approved)).toEqual([]);

    await Promise.all([boot(delays), boot(delays)]);
    await receiver.waitFor(3, (c) => statusOf(c)?.id === work.delivered);
    const arrived = Date.now();
    // Not dumped at once on boot: read is due three delays after the send.
    expect(arrived - work.sentAt).toBeGreaterThanOrEqual(3 * delays.status - 100);
    await expectPlayedOnce(work, open[0]);
  });

  it('plays past-due steps at once after a longer stop', async () => {
    // Ten minutes apart, after a stop of an hour: every step is long past due, and one the
    // replicas waited for (rather than played at once) would outlast the test.
    const delays = { status: 600_000, review: 600_000 };
    const first = await boot({ status: 60_000, review: 60_000 });
    const work = await startWork(first);
    // As if it stopped an hour ago: the steps count from these recorded times.
    await first.get(Sql).rows(`UPDATE gateway.messages SET updated_at = updated_at - interval '1 hour' WHERE id = ANY($1)`, [[work.delivered, work.failed]]);
    await first.get(Sql).rows(`UPDATE gateway.templates SET created_at = created_at - interval '1 hour' WHERE id = ANY($1)`, [[work.approved, work.rejected]]);
    await stop(first);
    expect(statusCalls(work.delivered)).toEqual([]);

    await Promise.all([boot(delays), boot(delays)]);
    await receiver.waitFor(3, (c) => statusOf(c)?.id === work.delivered);
    await receiver.waitFor(1, (c) => reviewOf(c)?.message_template_id === work.approved);
    await expectPlayedOnce(work, open[0]);
  });
});
