import { createTestApp, eventually, type TestApp } from '@app/testkit';
import { Sql } from '@app/database';
import request from 'supertest';
import { AccountsRepository } from '../../src/accounts/accounts.repository';
import { AppModule } from '../../src/app.module';
import { issuePushToken } from '../../src/push/push-token.issuer';
import { PushTokensRepository } from '../../src/push/push-tokens.repository';

export { request };

/**
 * Pushes are sent asynchronously: tests wait for an outcome (never for a fixed time), bounded by this.
 * Generous: a wait may include a stale-claim takeover (10 s in push-worker-kill) on a loaded machine.
 */
export const WAIT_MS = 45_000;

export interface PushApp extends TestApp {
  /** A new token for the named account (created on first use). */
  token(account?: string): Promise<string>;
  sql: Sql;
  /** POST /api/pushm/bulk as the spec sends it (application/hal+json). */
  post(token: string, pushs: unknown, headers?: Record<string, string>): request.Test;
  /** Resolves when `check` holds (the test kit's `eventually`); fails after WAIT_MS naming `what`. */
  until<T>(what: string, probe: () => T | Promise<T>, check: (value: T) => boolean): Promise<T>;
}

/** The app as npm start runs it (sandbox providers unless `env` says otherwise), with a fast relay. */
export async function startPush(env: Record<string, string> = {}): Promise<PushApp> {
  const t = await createTestApp(AppModule, { PUSH_RELAY_INTERVAL_MS: '50', PUSH_RETRY_SCHEDULE: '0.2,0.2,0.2', ...env });
  const sql = t.get(Sql);
  let accounts = 0;
  return {
    ...t,
    sql,
    token: (account = `acct-${process.pid}-${++accounts}-${Math.random().toString(36).slice(2, 8)}`) =>
      issuePushToken(t.get(PushTokensRepository), t.get(AccountsRepository), account, 'test'),
    post: (token, pushs, headers = {}) =>
      request(t.http)
        .post('/api/pushm/bulk')
        .set({ authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/hal+json', ...headers })
        .send(JSON.stringify(pushs === undefined ? {} : { pushs })),
    until: (what, probe, check) =>
      eventually(
        async () => {
          const value = await probe();
          return check(value) ? { value } : undefined;
        },
        { what, timeoutMs: WAIT_MS },
      ).then(({ value }) => value),
  };
}

/** A valid push item; `change` overrides fields. */
export function pushItem(change: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    nm_envio: 'promo',
    nm_push: `device-${Math.random().toString(36).slice(2)}`,
    nm_titulo: 'Oi {{nome}}',
    nm_mensagem: 'Seu cupom: {{cupom}}',
    url_scheme: 'app://promo',
    campos: 'nome,cupom',
    valor: 'Ana,X10',
    nm_plataforma: 'android',
    ...change,
  };
}

/**
 * `dt_envio` and `hr_envio` (UTC) for an instant `ms` from now, rounded up to the next whole
 * second, to spread into an item; `at` (that instant, in ms) is not enumerable, so spreading leaves it out.
 */
export function dueIn(ms: number): { dt_envio: string; hr_envio: string; readonly at: number } {
  const at = Math.ceil((Date.now() + ms) / 1000) * 1000;
  const iso = new Date(at).toISOString();
  return Object.defineProperty({ dt_envio: iso.slice(0, 10), hr_envio: iso.slice(11, 19) }, 'at', { value: at, enumerable: false }) as {
    dt_envio: string;
    hr_envio: string;
    readonly at: number;
  };
}

export interface ItemRow {
  id: string;
  status: string;
  attempts: number;
  sent_at: Date | null;
  due_at: Date;
  error: string | null;
  device: string;
}

/** The batch's items straight from the database, in request order. */
export function itemRows(sql: Sql, batchId: string): Promise<ItemRow[]> {
  return sql.rows<ItemRow>(`SELECT id, status, attempts, sent_at, due_at, error, device FROM ingest_push.push_items WHERE batch_id = $1 ORDER BY position`, [
    batchId,
  ]);
}
