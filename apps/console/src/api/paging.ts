/**
 * The services page their lists two ways: the docstore and ingest-push with a Laravel-style envelope
 * (`page`, `per_page`, `next_page_url`), the gateway as the chat network does (`limit`, `paging.cursors.after`).
 * `nextPage` reads either into the query of the next page, or null on the last one.
 */
export interface Page<T> {
  data: T[];
  total?: number;
  next_page_url?: string | null;
  current_page?: number;
  paging?: { cursors?: { after?: string }; next?: string };
}

export function nextPage(page: Page<unknown>): Record<string, string> | null {
  if (page.paging) {
    const after = page.paging.cursors?.after;
    return after && page.paging.next ? { after } : null;
  }
  if (page.next_page_url && typeof page.current_page === 'number') return { page: String(page.current_page + 1) };
  return null;
}

/** A query string from the non-empty entries. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
