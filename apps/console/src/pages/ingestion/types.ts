import type { components } from '../../api/generated/ingest-push';
import type { PathOf } from '../../api/openapi';

export type IngestionSummary = components['schemas']['IngestionSummary'];

/** The upload goes up with XMLHttpRequest (for its progress events), to this operation. */
export const SALES = '/DataInserterSales/api/sales' satisfies PathOf<'ingestion', 'post'>;

/** The upload's Content-Type from the file's name or type: JSON or CSV (the service refuses others with 415). */
export function contentTypeOf(file: { name: string; type: string }): string {
  if (/\.json$/i.test(file.name) || file.type === 'application/json') return 'application/json';
  return 'text/csv';
}
