import { createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request, type Dispatcher } from 'undici';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const DEFAULT_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** A token is renewed this long before Google says it expires. */
const EARLY_MS = 60_000;

/** The fields of a Google service-account key file that FCM needs. */
export interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  token_uri?: string;
}

/** Reads and checks a service-account JSON key file; throws one sentence naming what is wrong. */
export function readServiceAccount(file: string): ServiceAccount {
  let parsed: Partial<ServiceAccount>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServiceAccount>;
  } catch (error) {
    throw new Error(`FCM_SERVICE_ACCOUNT_FILE ${file} cannot be read as JSON: ${(error as Error).message}`);
  }
  for (const field of ['project_id', 'client_email', 'private_key'] as const) {
    if (typeof parsed[field] !== 'string' || parsed[field] === '') throw new Error(`FCM_SERVICE_ACCOUNT_FILE ${file} has no ${field}.`);
  }
  return parsed as ServiceAccount;
}

/**
 * OAuth2 access tokens for a service account (the JWT-bearer grant, RS256-signed with the
 * account's key), cached until shortly before they expire; concurrent callers share one
 * request. The token endpoint is FCM_TOKEN_URL, else the key file's token_uri.
 */
export class FcmAccessToken {
  private cached: { token: string; renewAt: number } | null = null;
  private pending: Promise<string> | null = null;
  readonly tokenUrl: string;

  constructor(
    private readonly account: ServiceAccount,
    tokenUrl: string | undefined,
    private readonly dispatcher: Dispatcher,
    private readonly timeoutMs: number,
  ) {
    this.tokenUrl = tokenUrl ?? account.token_uri ?? DEFAULT_TOKEN_URL;
  }

  async get(): Promise<string> {
    if (this.cached && Date.now() < this.cached.renewAt) return this.cached.token;
    this.pending ??= this.fetch().finally(() => (this.pending = null));
    return this.pending;
  }

  /** Forgets the cached token (FCM answered 401 with it). */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = null;
  }

  private async fetch(): Promise<string> {
    const response = await request(this.tokenUrl, {
      method: 'POST',
      dispatcher: this.dispatcher,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: this.assertion() }).toString(),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`token endpoint answered ${response.statusCode}: ${text.slice(0, 200)}`);
    const body = JSON.parse(text) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string') throw new Error('token endpoint answered without access_token');
    const lifetimeMs = (typeof body.expires_in === 'number' ? body.expires_in : 3600) * 1000;
    this.cached = { token: body.access_token, renewAt: Date.now() + Math.max(0, lifetimeMs - EARLY_MS) };
    return body.access_token;
  }

  private assertion(): string {
    const now = Math.floor(Date.now() / 1000);
    const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
    const claims = base64url(JSON.stringify({ iss: this.account.client_email, scope: FCM_SCOPE, aud: this.tokenUrl, iat: now, exp: now + 3600 }));
    const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(this.account.private_key);
    return `${header}.${claims}.${signature.toString('base64url')}`;
  }
}

export function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}
