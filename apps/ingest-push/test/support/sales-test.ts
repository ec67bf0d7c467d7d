// As in main.ts: config classes need reflect-metadata loaded before them.
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Sql } from '@app/database';
import { createTestApp, type TestApp } from '@app/testkit';
import { AppModule } from '../../src/app.module';
import { AccountsRepository } from '../../src/accounts/accounts.repository';
import { issueSalesApiKey } from '../../src/sales/sales-api-key.issuer';
import { SalesApiKeysRepository } from '../../src/sales/sales-api-keys.repository';

export const SALES_PATH = '/DataInserterSales/api/sales';

export interface IngestApp extends TestApp {
  /** A new API key of a new account (or of the account named `account`). */
  apiKey(account?: string): Promise<{ key: string; accountId: string; account: string }>;
  sql: Sql;
  port: number;
}

export async function startIngest(env: Record<string, string> = {}): Promise<IngestApp> {
  const t = await createTestApp(AppModule, env);
  await t.app.listen(0, '127.0.0.1');
  const [keys, accountsRepository] = [t.get(SalesApiKeysRepository), t.get(AccountsRepository)];
  let accounts = 0;
  return {
    ...t,
    sql: t.get(Sql),
    port: (t.http.address() as AddressInfo).port,
    apiKey: async (account = `acct-${process.pid}-${++accounts}-${randomUUID().slice(0, 8)}`) => {
      const key = await issueSalesApiKey(keys, accountsRepository, account, 'test');
      return { key, accountId: await accountsRepository.idNamed(account), account };
    },
  };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  json<T = Record<string, unknown>>(): T;
}

/**
 * POSTs `body` (a stream, or bytes) the way a real client does, over its own connection,
 * and keeps the answer even when the server answers before the body is all sent (413,
 * 400, 408) and closes the connection on the rest.
 */
export function upload(port: number, headers: Record<string, string>, body: Readable | Buffer | string, path = SALES_PATH): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => undefined);
      res.on('end', () => {
        settled = true;
        if (typeof body !== 'string' && !Buffer.isBuffer(body)) body.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, body: text, json: <T>() => JSON.parse(text) as T });
      });
    });
    // Writing into a connection the server closed after answering is expected here.
    req.on('error', (error) => setTimeout(() => !settled && reject(error), 200));
    if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
    else body.on('error', () => req.destroy()).pipe(req);
  });
}

/** The sales upload tool (apps/sales-upload) as its npm scripts run it: `node tools/run-tool.js sales-upload <command> <args>`. */
const SALES_TOOL = [join(__dirname, '../../../../tools/run-tool.js'), 'sales-upload'];

/**
 * Builds the sales upload tool unless its build is current (once, however many callers ask), so
 * the tests that run it do not spend their own time on the build. Call it from a `beforeAll`.
 */
export async function prepareSalesTool(): Promise<void> {
  const child = spawn(process.execPath, [...SALES_TOOL, 'help'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`the sales upload tool did not build (exit ${code}): ${stderr}`);
}

/** A file made by the generator, streamed from its stdout: `npm run -s ingest:generate -- <args>`. */
export function generated(args: string[]): Readable {
  const child = spawn(process.execPath, [...SALES_TOOL, 'generate', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return child.stdout;
}

/** Writes a generated file to `path` and resolves when it is complete. */
export async function generateFile(path: string, args: string[]): Promise<void> {
  const child = spawn(process.execPath, [...SALES_TOOL, 'generate', ...args, '--out', path], { stdio: 'inherit' });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`ingest:generate exited with ${code}`);
}

export interface UploadToolResult {
  code: number;
  lines: Array<Record<string, unknown>>;
  stderr: string;
}

/**
 * Starts the upload tool as users do (`npm run -s ingest:upload -- <args>`): its process, its
 * stderr so far, and its result (stdout's JSON lines) once it exits.
 */
export function startUploadTool(args: string[]): { child: ChildProcess; stderr(): string; done: Promise<UploadToolResult> } {
  const child = spawn(process.execPath, [...SALES_TOOL, 'upload', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = (async () => {
    // 'close': the process ended and its output was read whole.
    const [code] = (await once(child, 'close')) as [number];
    const lines = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    return { code, lines, stderr };
  })();
  return { child, stderr: () => stderr, done };
}

/** Runs the upload tool to its end: see `startUploadTool`. */
export function runUploadTool(args: string[]): Promise<UploadToolResult> {
  return startUploadTool(args).done;
}
