import { randomInt } from 'node:crypto';

/** A 16-digit id, the form the network gives templates and media. */
export function numericId(): string {
  return `${randomInt(10_000_000, 100_000_000)}${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}

/** True for an id of the network's numeric form (templates, media): digits only, as long as a stored one may be. */
export function isNumericId(id: string): boolean {
  return /^[0-9]{1,64}$/.test(id);
}
