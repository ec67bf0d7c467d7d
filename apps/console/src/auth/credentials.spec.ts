import { cleanCredentials, loadCredentials, saveCredentials, servicesOf, STORAGE_KEY } from './credentials';

class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem(k: string) {
    return this.items.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.items.set(k, v);
  }
  removeItem(k: string) {
    this.items.delete(k);
  }
}

describe('console credentials', () => {
  it('keeps known, non-empty fields, trimmed', () => {
    expect(cleanCredentials({ gatewayKey: '  gw_1_x ', pushToken: '', docstoreToken: 42, other: 'x' } as never)).toEqual({ gatewayKey: 'gw_1_x' });
  });

  it('opens each service whose credential is there; the docstore needs its client too', () => {
    expect(servicesOf({})).toEqual([]);
    expect(servicesOf({ docstoreToken: 'a|b' })).toEqual([]);
    expect(servicesOf({ docstoreToken: 'a|b', docstoreClient: 'c', ingestKey: 's', pushToken: 'p' })).toEqual(['docstore', 'ingestion', 'push']);
    expect(servicesOf({ gatewayKey: 'g' })).toEqual(['gateway']);
  });

  it('round-trips through the storage it is given, and signing out with nothing removes the entry', () => {
    const storage = new MemoryStorage();
    saveCredentials(storage, { gatewayKey: 'gw_1_x' });
    expect(loadCredentials(storage)).toEqual({ gatewayKey: 'gw_1_x' });
    saveCredentials(storage, {});
    expect(storage.items.has(STORAGE_KEY)).toBe(false);
  });

  it('reads a damaged entry as signed out', () => {
    const storage = new MemoryStorage();
    storage.setItem(STORAGE_KEY, '{not json');
    expect(loadCredentials(storage)).toEqual({});
  });
});
