import type { Credentials, Service } from './credentials';

/**
 * The non-secret part of each credential, the way its service names it: the docstore token's id (`<id>|…`) and
 * the key id of `gw_<id>_…`, `sales_<id>_…`, `push_<id>_…`. Never the secret.
 */
export function credentialIds(c: Credentials): Partial<Record<Service, string>> {
  const prefixed = (value: string | undefined) => {
    const m = value ? /^([a-z]+_[^_]+)_/.exec(value) : null;
    return m ? m[1] : undefined;
  };
  const out: Partial<Record<Service, string>> = {};
  if (c.docstoreToken && c.docstoreClient) out.docstore = c.docstoreToken.split('|', 1)[0];
  if (c.gatewayKey) out.gateway = prefixed(c.gatewayKey) ?? 'gateway key';
  if (c.ingestKey) out.ingestion = prefixed(c.ingestKey) ?? 'ingestion key';
  if (c.pushToken) out.push = prefixed(c.pushToken) ?? 'push token';
  return out;
}
