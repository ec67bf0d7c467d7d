/**
 * The credentials the console signs in with, one per service, any subset. They live in memory and in
 * sessionStorage (so a reload keeps them, closing the tab forgets them): never localStorage or cookies.
 */
export interface Credentials {
  /** docstore: `<id>|<secret>` and the client (UUID) it belongs to. */
  docstoreToken?: string;
  docstoreClient?: string;
  /** gateway: `gw_<id>_<secret>`. */
  gatewayKey?: string;
  /** ingestion: `sales_<id>_<secret>`. */
  ingestKey?: string;
  /** push: `push_<id>_<secret>`. */
  pushToken?: string;
}

export type Service = 'docstore' | 'gateway' | 'ingestion' | 'push';

export const STORAGE_KEY = 'console.credentials';

/** The part of sessionStorage used here. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const FIELDS: Array<keyof Credentials> = ['docstoreToken', 'docstoreClient', 'gatewayKey', 'ingestKey', 'pushToken'];

/** Keeps only known, non-empty string fields, trimmed. */
export function cleanCredentials(input: Partial<Record<keyof Credentials, unknown>>): Credentials {
  const out: Credentials = {};
  for (const field of FIELDS) {
    const value = input[field];
    if (typeof value === 'string' && value.trim() !== '') out[field] = value.trim();
  }
  return out;
}

/** Which services the credentials open: the docstore needs both its token and its client. */
export function servicesOf(c: Credentials): Service[] {
  const services: Service[] = [];
  if (c.docstoreToken && c.docstoreClient) services.push('docstore');
  if (c.gatewayKey) services.push('gateway');
  if (c.ingestKey) services.push('ingestion');
  if (c.pushToken) services.push('push');
  return services;
}

export function loadCredentials(storage: Pick<KeyValueStore, 'getItem'>): Credentials {
  try {
    const raw = storage.getItem(STORAGE_KEY);
    return raw ? cleanCredentials(JSON.parse(raw) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function saveCredentials(storage: Pick<KeyValueStore, 'setItem' | 'removeItem'>, c: Credentials): void {
  if (Object.keys(c).length === 0) storage.removeItem(STORAGE_KEY);
  else storage.setItem(STORAGE_KEY, JSON.stringify(c));
}
