export interface IngestionSummary {
  ingestion_id: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  stage: string | null;
  format: string;
  bytes: number;
  received: number;
  inserted: number;
  updated: number;
  rejected: number;
  error_count: number;
  errors_not_stored?: number;
  errors?: Array<{ line: number; record: number; field: string; reason: string }>;
  failure: string | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number;
}

export const SALES = '/DataInserterSales/api/sales';
export const runPath = (id: string) => `${SALES}/ingestions/${encodeURIComponent(id)}`;

/** The upload's Content-Type from the file's name or type: JSON or CSV (the service refuses others with 415). */
export function contentTypeOf(file: { name: string; type: string }): string {
  if (/\.json$/i.test(file.name) || file.type === 'application/json') return 'application/json';
  return 'text/csv';
}
