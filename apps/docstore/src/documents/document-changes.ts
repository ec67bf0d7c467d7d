/** What a change-feed entry says happened to the document. */
export const ChangeKind = {
  Created: 'created',
  Updated: 'updated',
  Deleted: 'deleted',
  Restored: 'restored',
} as const;

export type ChangeKind = (typeof ChangeKind)[keyof typeof ChangeKind];

export const CHANGE_KINDS: readonly ChangeKind[] = Object.values(ChangeKind);

/**
 * Told after a write that logged changes committed, so the feed gives them cursors at once
 * (the changes context provides it; the feed also finds them on its own within a second).
 */
export abstract class DocumentChangeSignal {
  abstract recorded(): void;
}

/**
 * The CTE that logs one change per row of `rows` (a CTE holding rows as the API shows them),
 * drawn while each document's row is locked by the statement, so ids follow each document's write order.
 */
export function changeLogCte(rows: string, kind: string): string {
  return `change_log AS (
    INSERT INTO docstore.changes (client_id, environment, context, type, key, document_id, version, kind, data, document)
    SELECT r.client_id, r.environment, r.context, r.type, r.key, r.id, r.version, ${kind}, r.data, to_jsonb(r) - 'data' FROM ${rows} r
  )`;
}
