import { existsSync } from 'node:fs';
import { exerciseDocsPage } from '@app/testkit';
import { startGateway, type Gateway } from './support/gateway-test';

describe('gateway: /docs in headless Chromium', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  it('lists every endpoint group of the spec, and runs an authorised request from the page', async () => {
    const phone = await gw.newPhone();
    const result = await exerciseDocsPage(gw, 'gateway', { apikey: phone.key }, {
      tag: 'Webhooks',
      method: 'GET',
      path: '/api/Webhooks',
      params: { version: '6.0' },
    });
    // The spec's groups: messages, media, templates, webhooks, profiles.
    for (const group of ['Messages', 'Medias', 'Templates', 'Webhooks', 'Profiles']) expect(result.specTags).toContain(group);
    expect(result.pageTags).toEqual(result.specTags);
    expect(result.status).toBe('200');
    expect(existsSync(result.screenshot)).toBe(true);
  }, 60_000);
});
