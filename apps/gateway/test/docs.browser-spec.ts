import { existsSync } from 'node:fs';
import { exerciseDocsPage } from '@app/testkit';
import { startGateway, type Gateway } from './support/gateway-test';

describe('gateway: /docs in headless Chromium', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway({ GATEWAY_SERVICE_WINDOW: 'off' });
  });
  afterAll(() => gw.close());

  it('lists every endpoint group, and sends a text message from the page with the example as offered', async () => {
    const phone = await gw.newPhone();
    const result = await exerciseDocsPage(
      gw,
      'gateway',
      { apikey: phone.key },
      {
        tag: 'Messages',
        method: 'POST',
        path: '/api/Messages',
        // The version header is picked; Idempotency-Key stays empty and the body is the text example.
        params: { version: '6.0' },
      },
    );
    // The spec's groups: messages, media, templates, webhooks, profiles.
    for (const group of ['Messages', 'Medias', 'Templates', 'Webhooks', 'Profiles']) expect(result.specTags).toContain(group);
    expect(result.pageTags).toEqual(result.specTags);
    const [sent] = result.answers;
    expect(sent.status).toBe('200');
    expect(JSON.parse(sent.body)).toMatchObject({ messaging_product: 'whatsapp', messages: [{ id: expect.any(String) }] });
    expect(existsSync(result.screenshot)).toBe(true);
  }, 60_000);
});
