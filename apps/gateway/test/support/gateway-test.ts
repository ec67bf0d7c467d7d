import { randomInt } from 'node:crypto';
import { Module, type Type } from '@nestjs/common';
import { SecretCipher } from '@app/secrets';
import { createTestApp, type TestApp } from '@app/testkit';
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
export function useGateway(on: { app(gw: Gateway): void; phone(phone: Phone): void }): void {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway();
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
