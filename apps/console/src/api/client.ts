import type { Credentials, Service } from '../auth/credentials';
import { ApiError, errorMessage } from './errors';

/** The headers each service reads its credential from (see each app's README). */
export function authHeaders(service: Service, c: Credentials): Record<string, string> {
  switch (service) {
    case 'docstore':
      return { Authorization: `Bearer ${c.docstoreToken ?? ''}` };
    case 'gateway':
      return { apikey: c.gatewayKey ?? '', version: '6.0' };
    case 'ingestion':
      return { apiKey: c.ingestKey ?? '' };
    case 'push':
      return { Authorization: `Bearer ${c.pushToken ?? ''}` };
  }
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Reads a response body as JSON when it is JSON, else as text. */
async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One same-origin request to `service` with its credential; a refused answer throws ApiError with the API's message. */
export async function api<T>(service: Service, c: Credentials, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders(service, c), ...options.headers };
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await fetch(path, { method: options.method ?? 'GET', headers, body, credentials: 'omit' });
  const parsed = await readBody(res);
  if (!res.ok) throw new ApiError(res.status, errorMessage(res.status, res.statusText, parsed), parsed);
  return parsed as T;
}

/** A GET answered as a file (the error CSV), saved through a temporary object URL. */
export async function download(service: Service, c: Credentials, path: string, filename: string): Promise<void> {
  const res = await fetch(path, { headers: authHeaders(service, c), credentials: 'omit' });
  if (!res.ok) {
    const parsed = await readBody(res);
    throw new ApiError(res.status, errorMessage(res.status, res.statusText, parsed), parsed);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
