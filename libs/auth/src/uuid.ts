const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID in canonical text form (any version). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
