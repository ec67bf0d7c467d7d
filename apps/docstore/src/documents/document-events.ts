import type { PageQuery } from '@app/pagination';
import type { DocumentScope } from '../address/document-scope';
import type { DocumentDto } from './document.dto';

/**
 * The webhook events of the document store. Created: POST create (also reviving a
 * deleted or expired key) and bulk items whose key was not live. Updated: PUT, bulk
 * items whose key was live, and history restore. Deleted: DELETE. Read: GET of one
 * document (the document), and a list page as one event (`PageRead`).
 */
export const DocumentEvent = {
  Created: 'document.created',
  Updated: 'document.updated',
  Deleted: 'document.deleted',
  Read: 'document.read',
} as const;

export const DOCUMENT_EVENTS: readonly string[] = Object.values(DocumentEvent);

/**
 * The `document.read` data of a list page: one event per page, naming what it showed, never one
 * per document, so a page's cost to the webhooks does not grow with its documents' size or number.
 */
export interface PageRead {
  environment: string;
  context: string;
  type: string;
  page: number;
  per_page: number;
  total: number;
  documents: Array<Pick<DocumentDto, 'id' | 'key' | 'version'>>;
}

export function pageRead(scope: DocumentScope, page: PageQuery, rows: readonly DocumentDto[], total: number): PageRead {
  return {
    environment: scope.environment,
    context: scope.context,
    type: scope.type,
    page: page.page,
    per_page: page.perPage,
    total,
    documents: rows.map((d) => ({ id: d.id, key: d.key, version: d.version })),
  };
}
