/**
 * A small per-process cache with a lifetime, for what every request or delivery would
 * otherwise read from PostgreSQL. Concurrent misses for one key share one load.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { at: number; value: Promise<V>; loaded?: { value: V } }>();

  constructor(private readonly ttlMs: number) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = load();
    const entry: { at: number; value: Promise<V>; loaded?: { value: V } } = { at: now, value };
    this.entries.set(key, entry);
    value.then(
      (loaded) => (entry.loaded = { value: loaded }),
      () => this.entries.delete(key),
    );
    if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  /** The value, when it is loaded and fresh: what every request after the first reads, without a promise. */
  peek(key: string): { value: V } | undefined {
    const hit = this.entries.get(key);
    return hit && Date.now() - hit.at < this.ttlMs ? hit.loaded : undefined;
  }

  evict(key: string): void {
    this.entries.delete(key);
  }
}
