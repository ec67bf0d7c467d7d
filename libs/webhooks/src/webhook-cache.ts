/**
 * A small per-process cache with a lifetime, for what every request or delivery would
 * otherwise read from PostgreSQL. Concurrent misses for one key share one load.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { at: number; value: Promise<V> }>();

  constructor(private readonly ttlMs: number) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = load();
    this.entries.set(key, { at: now, value });
    value.catch(() => this.entries.delete(key));
    if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  evict(key: string): void {
    this.entries.delete(key);
  }
}
