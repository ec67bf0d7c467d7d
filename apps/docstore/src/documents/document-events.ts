/**
 * The webhook events of the document store. Created: POST create (also reviving a
 * deleted or expired key) and bulk items whose key was not live. Updated: PUT, bulk
 * items whose key was live, and history restore. Deleted: DELETE. Read: GET of one
 * document, and each document of a list page.
 */
export const DocumentEvent = {
  Created: 'document.created',
  Updated: 'document.updated',
  Deleted: 'document.deleted',
  Read: 'document.read',
} as const;

export const DOCUMENT_EVENTS: readonly string[] = Object.values(DocumentEvent);
