import request from 'supertest';
import { trickleBody } from '@app/testkit';
import { startGateway, text, type Gateway, type Phone } from './support/gateway-test';

/** Issue 28: a JSON body that stalls is cut within BODY_TIMEOUT_SECONDS (+ one check), not Node's 300 s. */
describe('gateway slow bodies', () => {
  let gw: Gateway;
  let phone: Phone;

  beforeAll(async () => {
    gw = await startGateway({ BODY_TIMEOUT_SECONDS: '2', GATEWAY_SERVICE_WINDOW: 'off' });
    phone = await gw.newPhone();
  });
  afterAll(() => gw.close());

  it('answers 408 to a message body trickled at 1 byte per second and closes the connection within the bound', async () => {
    const res = await trickleBody(gw.http, { method: 'POST', path: '/api/Messages', headers: phone.headers });
    expect(res.status).toBe(408);
    expect(res.body).toContain('BODY_TIMEOUT_SECONDS');
    expect(res.closeHeader).toBe(true);
    expect(res.closedAfterMs).toBeGreaterThanOrEqual(2000);
    expect(res.closedAfterMs).toBeLessThan(2000 + 500 + 1000);
    await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200);
  });
});
