import { randomUUID } from 'node:crypto';
import { AuditLog, CLI_ACTOR } from '@app/audit';
import { Sql } from '@app/database';
import { createTestApp, type TestApp } from '@app/testkit';
import request from 'supertest';
import { AppModule } from '../../src/app.module';
import { DocstoreWebhookWorkerModule } from '../../src/webhook-worker.module';
import { DOCSTORE_SCOPES } from '../../src/tokens/docstore-scopes';
import { TokensRepository } from '../../src/tokens/tokens.repository';
import { issueToken } from '../../src/tokens/token.issuer';
import type { TokenScopes } from '../../src/tokens/token-scopes';

export interface Docstore extends TestApp {
  /** A fresh client with an all-scopes token: tests isolate themselves by client. */
  newClient(scopes?: TokenScopes): Promise<Client>;
  /** A token for an existing client. */
  mintToken(clientId: string, scopes: TokenScopes, expiresAt?: string | null): Promise<string>;
}

export interface Client {
  id: string;
  token: string;
  /** `/api/v1/client/{id}/{env}/context/{ctx}/type/{type}` for this client. */
  doc(environment?: string, context?: string, type?: string): string;
  auth: { Authorization: string };
}

/**
 * The one way the docstore's suites boot it: the API (and inline workers), or with
 * `WEBHOOK_WORKERS: 'only'` the worker-only process, as `main.js` picks its module.
 */
export async function startDocstore(env: Record<string, string> = {}): Promise<Docstore> {
  const app = await createTestApp(env.WEBHOOK_WORKERS === 'only' ? DocstoreWebhookWorkerModule : AppModule, env);
  const mintToken = async (clientId: string, scopes: TokenScopes, expiresAt: string | null = null): Promise<string> =>
    (await issueToken(app.get(TokensRepository), { sql: app.get(Sql), audit: app.get(AuditLog), actor: CLI_ACTOR }, clientId, 'test', scopes, expiresAt))
      .plainText;
  return {
    ...app,
    mintToken,
    newClient: async (scopes: TokenScopes = [...DOCSTORE_SCOPES]) => {
      const id = randomUUID();
      const token = await mintToken(id, scopes);
      return {
        id,
        token,
        auth: { Authorization: `Bearer ${token}` },
        doc: (environment = 'production', context = 'shop', type = 'product') => `/api/v1/client/${id}/${environment}/context/${context}/type/${type}`,
      };
    },
  };
}

/** The body POST/PUT expect for a document at `path`/{key}. */
export function docBody(key: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}, env = 'production', ctx = 'shop', type = 'product') {
  return { environment: env, context: ctx, type, key, data, ...extra };
}

export { request };

/**
 * Boots one docstore for the enclosing describe block (closed after it) and, when asked,
 * a fresh client before each test: `useDocstore({ app: (d) => (ds = d), client: (x) => (c = x) })`.
 */
export function useDocstore(on: { app(ds: Docstore): void; client?(c: Client): void }, env: Record<string, string> = {}): void {
  let ds: Docstore;
  beforeAll(async () => {
    ds = await startDocstore(env);
    on.app(ds);
  });
  afterAll(() => ds.close());
  if (on.client) {
    const setClient = on.client;
    beforeEach(async () => setClient(await ds.newClient()));
  }
}
