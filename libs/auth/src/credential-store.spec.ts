import { CachedCredentialStore, type CredentialTable, type StoredCredential } from './credential-store';
import type { Principal } from './principal';
import { hashSecret } from './secret';

/** The table seam of the cache, in memory: the store's own logic is what is tested here (the lib's e2e uses PostgreSQL). */
function table(rows: Record<string, StoredCredential<Principal>>) {
  const calls: string[] = [];
  const touched: Array<Map<string, Date>> = [];
  const t: CredentialTable<Principal> & { calls: string[]; touched: typeof touched; failTouch?: boolean } = {
    calls,
    touched,
    find: async (id) => {
      calls.push(id);
      await new Promise((r) => setImmediate(r));
      return rows[id] ?? null;
    },
    touch: async (batch) => {
      if (t.failTouch) throw new Error('down');
      touched.push(new Map(batch));
    },
  };
  return t;
}

const row = (id: string, secret: string, extra: Partial<StoredCredential<Principal>> = {}): StoredCredential<Principal> => ({
  secretHash: hashSecret(secret),
  active: true,
  principal: { credentialId: id, ownerId: `owner-${id}` },
  ...extra,
});

// Short ids keep the cases readable; the default (UUIDs only) has its own case.
const options = { name: 'test', cacheTtlMs: 60_000, lastUsedFlushMs: 60_000, normalizeId: (id: string) => id };

describe('CachedCredentialStore', () => {
  it('verifies the right secret only, and refuses revoked or expired rows', async () => {
    const t = table({ a: row('a', 'sa'), r: row('r', 'sr', { active: false }), e: row('e', 'se', { expiresAt: new Date(Date.now() - 1) }) });
    const store = new CachedCredentialStore(t, options);
    expect(await store.verify({ id: 'a', secret: 'sa' })).toEqual({ credentialId: 'a', ownerId: 'owner-a' });
    expect(await store.verify({ id: 'a', secret: 'sb' })).toBeNull();
    expect(await store.verify({ id: 'r', secret: 'sr' })).toBeNull();
    expect(await store.verify({ id: 'e', secret: 'se' })).toBeNull();
    expect(await store.verify({ id: 'nope', secret: 'x' })).toBeNull();
  });

  it('looks a row up once while cached, once for concurrent misses, and again after evict', async () => {
    const t = table({ a: row('a', 'sa') });
    const store = new CachedCredentialStore(t, options);
    await Promise.all(Array.from({ length: 10 }, async () => store.verify({ id: 'a', secret: 'sa' })));
    await store.verify({ id: 'a', secret: 'sa' });
    expect(t.calls).toEqual(['a']);
    store.evict('a');
    await store.verify({ id: 'a', secret: 'sa' });
    expect(t.calls).toEqual(['a', 'a']);
  });

  it('skips the lookup for ids the normalizer refuses, and caches by the normalized id', async () => {
    const t = table({ a: row('a', 'sa') });
    const store = new CachedCredentialStore(t, { ...options, normalizeId: (id) => (/^[a-z]$/i.test(id) ? id.toLowerCase() : null) });
    expect(await store.verify({ id: 'not valid', secret: 'sa' })).toBeNull();
    expect(await store.verify({ id: 'A', secret: 'sa' })).not.toBeNull();
    expect(await store.verify({ id: 'a', secret: 'sa' })).not.toBeNull();
    expect(t.calls).toEqual(['a']);
  });

  it('by default looks up UUIDs only, in lower case', async () => {
    const id = '6f1c2a4e-1b2c-4d3e-8f90-123456789abc';
    const t = table({ [id]: row(id, 's') });
    const store = new CachedCredentialStore(t, { name: 'test', cacheTtlMs: 60_000 });
    expect(await store.verify({ id: id.toUpperCase(), secret: 's' })).not.toBeNull();
    expect(await store.verify({ id: 'a', secret: 's' })).toBeNull();
    expect(t.calls).toEqual([id]);
  });

  it('evicts the oldest entry when full', async () => {
    const t = table({ a: row('a', 's'), b: row('b', 's'), c: row('c', 's') });
    const store = new CachedCredentialStore(t, { ...options, maxEntries: 2 });
    for (const id of ['a', 'b', 'c', 'b', 'a']) await store.verify({ id, secret: 's' });
    expect(t.calls).toEqual(['a', 'b', 'c', 'a']);
  });

  it('does not cache with a TTL of 0', async () => {
    const t = table({ a: row('a', 's') });
    const store = new CachedCredentialStore(t, { ...options, cacheTtlMs: 0 });
    await store.verify({ id: 'a', secret: 's' });
    await store.verify({ id: 'a', secret: 's' });
    expect(t.calls).toEqual(['a', 'a']);
  });

  it('writes last-use times in one batch, keeps them when the write fails, and flushes before the app shuts down', async () => {
    const t = table({ a: row('a', 's'), b: row('b', 's') });
    const store = new CachedCredentialStore(t, options);
    store.onModuleInit();
    await store.verify({ id: 'a', secret: 's' });
    await store.verify({ id: 'b', secret: 'wrong' });
    t.failTouch = true;
    await store.flushLastUsed();
    expect(t.touched).toEqual([]);
    t.failTouch = false;
    await store.verify({ id: 'b', secret: 's' });
    await store.beforeApplicationShutdown();
    expect(t.touched).toHaveLength(1);
    expect([...t.touched[0].keys()].sort()).toEqual(['a', 'b']);
  });
});
