import { trickleBody } from '@app/testkit';
import { pushItem, startPush, type PushApp } from './support/push-test';

/** Issue 28: a JSON body that stalls is cut within BODY_TIMEOUT_SECONDS (+ one check), not Node's 300 s. */
describe('push slow bodies', () => {
  let push: PushApp;

  beforeAll(async () => {
    push = await startPush({ BODY_TIMEOUT_SECONDS: '2' });
  });
  afterAll(() => push.close());

  it('answers 408 to a push body trickled at 1 byte per second and closes the connection within the bound', async () => {
    const token = await push.token();
    const res = await trickleBody(push.http, { method: 'POST', path: '/api/pushm/bulk', headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(408);
    expect(res.body).toContain('BODY_TIMEOUT_SECONDS');
    expect(res.closeHeader).toBe(true);
    expect(res.closedAfterMs).toBeGreaterThanOrEqual(2000);
    expect(res.closedAfterMs).toBeLessThan(2000 + 500 + 1000);
    expect((await push.post(token, [pushItem()])).status).toBe(202);
  });
});
