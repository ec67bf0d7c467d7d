import { randomInt } from 'node:crypto';
import { Module, type Type } from '@nestjs/common';
import { SecretCipher } from '@app/secrets';
import { createTestApp, eventually, type TestApp } from '@app/testkit';
import request from 'supertest';
import { numericId } from '../../src/common/numeric-id';
import { AccountsRepository } from '../../src/accounts/accounts.repository';
import { issueApiKey } from '../../src/accounts/api-key.issuer';
import { AppModule, gatewayModule } from '../../src/app.module';
import { startFakeGraphApi, type FakeGraphApi } from './fake-graph-api';

export interface Gateway extends TestApp {
  /** A fresh business phone (and account, with its own WABA id) with an API key: tests isolate themselves by account. */
  newPhone(options?: { accessToken?: string; wabaId?: string }): Promise<Phone>;
  /** Another phone of the same account (WABA) as `phone`, which must have been minted with a wabaId. */
  addPhone(phone: Phone): Promise<Phone>;
}

export interface Phone {
  phone: string;
  phoneId: string;
  key: string;
  /** The headers every request carries: apikey and version. */
  headers: Record<string, string>;
}

export const NETWORK = 'whatsapp';

/**
 * Boots the gateway (as main.ts does) with test settings: short sandbox delays, its own media directory.
 * `trustedCertificates`: CAs its webhook deliveries trust (a test's own https receivers).
 */
export async function startGateway(env: Record<string, string> = {}, options: { trustedCertificates?: string[] } = {}): Promise<Gateway> {
  let root: Type = AppModule;
  if (options.trustedCertificates) {
    @Module({ imports: [gatewayModule({ trustedCertificates: options.trustedCertificates })] })
    class TrustingTestCa {}
    root = TrustingTestCa;
  }
  return withPhones(
    await createTestApp(root, { SANDBOX_STATUS_DELAY_MS: '50', SANDBOX_REVIEW_DELAY_MS: '50', MEDIA_DIR: `/tmp/gateway-test-media-${process.pid}`, ...env }),
  );
}

/** A booted gateway app, with helpers that mint business phones and their API keys. */
export function withPhones(app: TestApp): Gateway {
  const mint = async (phone: string, phoneId: string, options: { accessToken?: string; wabaId?: string } = {}): Promise<Phone> => {
    const key = await issueApiKey(app.get(AccountsRepository), app.get(SecretCipher), { phone, phoneId, name: 'test', ...options });
    return { phone, phoneId, key, headers: { apikey: key, version: '6.0' } };
  };
  return {
    ...app,
    newPhone: (options = {}) => mint(`1555${randomInt(1e6, 9e6)}`, numericId(), { wabaId: numericId(), ...options }),
    addPhone: async (phone) => {
      // A new phone of the same WABA joins its account.
      const wabaId = (await app.get(AccountsRepository).findPhoneById(phone.phoneId))!.waba_id;
      if (!wabaId) throw new Error('addPhone needs a phone minted with a wabaId');
      return mint(`1555${randomInt(1e6, 9e6)}`, numericId(), { wabaId });
    },
  };
}

export { request };

/** A text message body to `to`. */
export function text(to: string, body = 'hello'): Record<string, unknown> {
  return { messaging_product: NETWORK, recipient_type: 'individual', to, type: 'text', text: { body } };
}

/** For a describe block: a sandbox gateway (started before the block, closed after it) and a fresh phone before each test. */
export function useGateway(on: { app(gw: Gateway): void; phone(phone: Phone): void }, env: Record<string, string> = {}): void {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway(env);
    on.app(gw);
  });
  afterAll(() => gw.close());
  beforeEach(async () => on.phone(await gw.newPhone()));
}

/**
 * For a describe block: a gateway on the `cloud` provider pointed at its own fake Graph API
 * (started before the block, closed after it, its calls and answers reset before each test).
 */
export function useCloudGateway(env: Record<string, string> = {}): { readonly gw: Gateway; readonly graph: FakeGraphApi } {
  let gw: Gateway;
  let graph: FakeGraphApi;
  beforeAll(async () => {
    graph = await startFakeGraphApi();
    gw = await startGateway({ GATEWAY_PROVIDER: 'cloud', CLOUD_API_BASE_URL: graph.url, CLOUD_API_VERSION: 'v21.0', CLOUD_API_TIMEOUT_MS: '2000', ...env });
  });
  afterAll(async () => {
    await gw?.close();
    await graph?.close();
  });
  beforeEach(() => graph.reset());
  return {
    get gw() {
      return gw;
    },
    get graph() {
      return graph;
    },
  };
}

/**
 * The sandbox's customer `from` writes to `phone` (POST api/Sandbox/Inbound), which opens the
 * contact's 24-hour service window: free-form messages to a contact need it.
 */
export async function openConversation(gw: Gateway, phone: Phone, from: string, body = 'Hi'): Promise<string> {
  const res = await request(gw.http).post('/api/Sandbox/Inbound').set(phone.headers).send({ from, type: 'text', text: { body } }).expect(200);
  return res.body.id as string;
}

/** Creates a template for `phone`'s account and waits for the sandbox to approve it. */
export async function approvedTemplate(gw: Gateway, phone: Phone, body: Record<string, unknown>): Promise<string> {
  const { id } = (await request(gw.http).post('/api/Templates').set(phone.headers).send(body).expect(201)).body as { id: string };
  await eventually(
    async () => {
      const res = await request(gw.http).get(`/api/Templates/${id}`).set(phone.headers).expect(200);
      if (res.body.status === 'REJECTED') throw new Error(`template ${String(body.name)} was rejected`);
      return res.body.status === 'APPROVED' ? true : undefined;
    },
    { what: `template ${String(body.name)} approved`, timeoutMs: 10_000 },
  );
  return id;
}

/** A template of `category` with one body variable, and the message that sends it to `to`. */
export function templateOf(name: string, category: 'MARKETING' | 'UTILITY'): Record<string, unknown> {
  return { name, category, language: 'en_US', components: [{ type: 'BODY', text: 'Hi {{1}}, news for you.', example: { body_text: [['Ana']] } }] };
}

export function templateMessage(to: string, name: string): Record<string, unknown> {
  return {
    messaging_product: NETWORK,
    to,
    type: 'template',
    template: { name, language: { code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }] },
  };
}
