import type { components as Gateway } from './generated/gateway';
import type { components as IngestPush } from './generated/ingest-push';

/**
 * The services page their lists two ways: the docstore and ingest-push with a Laravel-style envelope
 * (`page`, `per_page`, `next_page_url`), the gateway as the chat network does (`limit`, `paging.cursors.after`).
 * `nextPage` reads either into the query of the next page, or null on the last one.
 */
type LaravelPage = Pick<IngestPush['schemas']['IngestionPage'], 'current_page' | 'next_page_url'>;
type CursorPage = Pick<Gateway['schemas']['MessagesPage'], 'paging'>;

/** What `nextPage` reads of a list answer: every list answer of the services has one of these shapes. */
export type PageEnvelope = LaravelPage | CursorPage;

export function nextPage<E extends PageEnvelope>(page: E): (E extends CursorPage ? { after: string } : { page: number }) | null;
export function nextPage(page: PageEnvelope): { page: number } | { after: string } | null {
  if ('paging' in page) {
    const after = page.paging.cursors.after;
    return after && page.paging.next ? { after } : null;
  }
  return page.next_page_url ? { page: page.current_page + 1 } : null;
}
