import createClient from 'openapi-fetch';
import type { Credentials, Service } from '../auth/credentials';
import { ApiError, errorMessage } from './errors';
import type { Answer, Init, Method, PathOf } from './openapi';

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

/**
 * One client for every service: they all sit behind the console's own origin (relative paths, no CORS), and the
 * credentials travel as headers only (`credentials: 'omit'`). Types come from `call`'s signature, per service.
 */
const client = createClient<Record<string, Record<Method, object>>>({ credentials: 'omit' });

type LooseInit = { params?: object; body?: unknown; headers?: Record<string, string>; parseAs?: 'json' | 'blob' };

async function send(service: Service, c: Credentials, method: Method, path: string, init: LooseInit): Promise<unknown> {
  // The runtime client is untyped: `call` gives each path its types.
  const { data, error, response } = await client.request(
    method,
    path as never,
    {
      ...init,
      headers: { Accept: 'application/json', ...authHeaders(service, c), ...init.headers },
    } as never,
  );
  // openapi-fetch reads a refused answer's body as JSON when it is JSON, else as text.
  if (!response.ok) throw new ApiError(response.status, errorMessage(response.status, response.statusText, error ?? null), error ?? null);
  return data;
}

/**
 * One same-origin request to `service` with its credential, typed by the service's OpenAPI document: `path` is one
 * of its path templates, `init` its parameters and body, the answer its success schema. A refused answer throws
 * ApiError with the API's message.
 */
export function call<S extends Service, M extends Method, P extends PathOf<S, M>>(
  service: S,
  c: Credentials,
  method: M,
  path: P,
  ...[init]: object extends Init<S, M, P> ? [Init<S, M, P>?] : [Init<S, M, P>]
): Promise<Answer<S, M, P>> {
  return send(service, c, method, path as string, (init ?? {}) as LooseInit) as Promise<Answer<S, M, P>>;
}

/** A GET answered as a file (the error CSV), saved through a temporary object URL. */
export async function download<S extends Service, P extends PathOf<S, 'get'>>(
  service: S,
  c: Credentials,
  path: P,
  init: Init<S, 'get', P>,
  filename: string,
): Promise<void> {
  const blob = (await send(service, c, 'get', path as string, { ...(init as LooseInit), headers: { Accept: '*/*' }, parseAs: 'blob' })) as Blob;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
