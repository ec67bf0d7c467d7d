/** Slots of the first table; each next one has twice as many, up to the last. */
const FIRST_SLOTS = 1 << 16;
const LAST_SLOTS = 1 << 22;
/** A table takes keys until it is half full (a search for a new key then probes about 2.5 slots). */
const MAX_LOAD = 0.5;

/**
 * The (OrderId, ProductId) keys of one upload's lines, kept as 32-bit fingerprints in open-addressing tables
 * whose slot comes from a second, independent 32-bit hash: 8 bytes a key at most (all tables, 32 MiB, hold
 * about 4.2 million keys), where a Set of the strings would take some 100. A full table is kept and a new
 * one twice its size takes the next keys, so nothing is ever copied and memory never doubles for a moment.
 *
 * `add` answers whether the key may have been added before: always true for a repeat, and for a new key
 * with a chance of a few in a billion (an equal fingerprint on its probe path in some table). So `false`
 * means certainly new, and `true` means "maybe". Once every table is full, `add` answers true.
 */
export class SaleKeySet {
  private readonly tables: Uint32Array[] = [new Uint32Array(FIRST_SLOTS)];
  private filled = 0;
  private size = 0;

  /** `lastSlots`: the largest table's slots (a power of two, at least the first's). */
  constructor(private readonly lastSlots = LAST_SLOTS) {}

  /** Keys added. */
  get count(): number {
    return this.size;
  }

  add(orderId: string, productId: string): boolean {
    // Two FNV-1a hashes in one pass (different offsets and primes), each finished by murmur3's mixer.
    let a = 0x811c9dc5;
    let b = 0x050c5d1f;
    for (let i = 0; i < orderId.length; i++) {
      const c = orderId.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
    // A separator no UTF-16 unit equals: ("ab", "c") and ("a", "bc") hash apart.
    a = Math.imul(a ^ 0x10000, 0x01000193);
    b = Math.imul(b ^ 0x10000, 0x5bd1e995);
    for (let i = 0; i < productId.length; i++) {
      const c = productId.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
    const home = mix(a);
    const fingerprint = mix(b) || 1;
    const tables = this.tables;
    const last = tables.length - 1;
    for (let t = 0; t < last; t++) if (find(tables[t], home, fingerprint) === -1) return true;
    let table = tables[last];
    const at = find(table, home, fingerprint);
    if (at === -1) return true;
    if (this.filled >= table.length * MAX_LOAD) {
      if (table.length >= this.lastSlots) return true;
      tables.push((table = new Uint32Array(table.length * 2)));
      this.filled = 0;
      table[find(table, home, fingerprint)] = fingerprint;
    } else table[at] = fingerprint;
    this.filled++;
    this.size++;
    return false;
  }
}

/** The slot of `fingerprint` from `home` on: -1 when it is there, else the free slot where it would go. */
function find(table: Uint32Array, home: number, fingerprint: number): number {
  const mask = table.length - 1;
  for (let i = home & mask; ; i = (i + 1) & mask) {
    const held = table[i];
    if (held === fingerprint) return -1;
    if (held === 0) return i;
  }
}

/** murmur3's 32-bit finalizer: every input bit moves every output bit. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
