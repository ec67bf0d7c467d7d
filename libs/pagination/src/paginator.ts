import type { PageQuery } from './page-query';

export interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

/** The paginated envelope, field for field as Laravel's LengthAwarePaginator renders it. */
export interface Paginated<T> {
  current_page: number;
  data: T[];
  first_page_url: string;
  from: number | null;
  last_page: number;
  last_page_url: string;
  links: PageLink[];
  next_page_url: string | null;
  path: string;
  per_page: number;
  prev_page_url: string | null;
  to: number | null;
  total: number;
}

/** Where the list lives: absolute path plus the query to keep in every link (filters, sort, per_page). */
export interface PageLocation {
  path: string;
  query: URLSearchParams;
}

const ON_EACH_SIDE = 3;

export function paginate<T>(items: T[], total: number, page: PageQuery & { location: PageLocation }): Paginated<T> {
  const location = page.location;
  const lastPage = Math.max(1, Math.ceil(total / page.perPage));
  const current = page.page;
  const url = (n: number): string => pageUrl(location, n);
  const from = items.length > 0 ? page.offset + 1 : null;
  return {
    current_page: current,
    data: items,
    first_page_url: url(1),
    from,
    last_page: lastPage,
    last_page_url: url(lastPage),
    links: links(current, lastPage, url),
    next_page_url: current < lastPage ? url(current + 1) : null,
    path: location.path,
    per_page: page.perPage,
    prev_page_url: current > 1 ? url(current - 1) : null,
    to: from === null ? null : page.offset + items.length,
    total,
  };
}

function pageUrl(location: PageLocation, page: number): string {
  const query = new URLSearchParams(location.query);
  query.delete('page');
  query.append('page', String(page));
  return `${location.path}?${query.toString()}`;
}

/** Laravel's UrlWindow: every page when there are few, otherwise first two, a slider and last two with "..." between. */
function links(current: number, last: number, url: (n: number) => string): PageLink[] {
  const out: PageLink[] = [{ url: current > 1 ? url(current - 1) : null, label: '&laquo; Previous', active: false }];
  const pages = (from: number, to: number): void => {
    for (let n = from; n <= to; n++) out.push({ url: url(n), label: String(n), active: n === current });
  };
  const dots = (): void => {
    out.push({ url: null, label: '...', active: false });
  };
  const window = ON_EACH_SIDE + 4;
  if (last < ON_EACH_SIDE * 2 + 8) {
    pages(1, last);
  } else if (current <= window) {
    pages(1, window + ON_EACH_SIDE);
    dots();
    pages(last - 1, last);
  } else if (current > last - window) {
    pages(1, 2);
    dots();
    pages(last - (window + ON_EACH_SIDE - 1), last);
  } else {
    pages(1, 2);
    dots();
    pages(current - ON_EACH_SIDE, current + ON_EACH_SIDE);
    dots();
    pages(last - 1, last);
  }
  out.push({ url: current < last ? url(current + 1) : null, label: 'Next &raquo;', active: false });
  return out;
}
