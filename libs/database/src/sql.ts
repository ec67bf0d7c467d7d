/**
 * Renders a timestamptz column as the specs want it: UTC, six fractional digits, trailing Z.
 * (node-postgres would parse it into a Date and drop the microseconds.)
 */
export function isoTimestamp(column: string, alias = column.split('.').pop()!): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "${alias}"`;
}
