import { randomInt } from 'node:crypto';

/** A 16-digit id, the form the network gives templates and media. */
export function numericId(): string {
  return `${randomInt(10_000_000, 100_000_000)}${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}
