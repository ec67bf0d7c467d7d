import { paginate, type PageLink, type PageLocation } from './paginator';

const PATH = 'http://api.test/api/v1/things';
const location = (query = ''): PageLocation => ({ path: PATH, query: new URLSearchParams(query) });
const page = (n: number, perPage = 10, query = '') => ({ page: n, perPage, offset: (n - 1) * perPage, location: location(query) });

/** The labels of the page links (without Previous/Next), e.g. ['1', '2', '...', '20']. */
const labels = (links: PageLink[]): string[] => links.slice(1, -1).map((l) => l.label);
const range = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

describe('paginate', () => {
  it('renders the Laravel envelope', () => {
    const result = paginate(['k', 'l'], 12, page(2, 10, 'per_page=10&filter%5Ba%5D=1'));
    expect(result).toEqual({
      current_page: 2,
      data: ['k', 'l'],
      first_page_url: `${PATH}?per_page=10&filter%5Ba%5D=1&page=1`,
      from: 11,
      last_page: 2,
      last_page_url: `${PATH}?per_page=10&filter%5Ba%5D=1&page=2`,
      links: [
        { url: `${PATH}?per_page=10&filter%5Ba%5D=1&page=1`, label: '&laquo; Previous', active: false },
        { url: `${PATH}?per_page=10&filter%5Ba%5D=1&page=1`, label: '1', active: false },
        { url: `${PATH}?per_page=10&filter%5Ba%5D=1&page=2`, label: '2', active: true },
        { url: null, label: 'Next &raquo;', active: false },
      ],
      next_page_url: null,
      path: PATH,
      per_page: 10,
      prev_page_url: `${PATH}?per_page=10&filter%5Ba%5D=1&page=1`,
      to: 12,
      total: 12,
    });
  });

  it('moves page to the end of the query, replacing any page given', () => {
    const result = paginate([], 30, page(1, 10, 'page=1&sort=-a&per_page=10'));
    expect(result.next_page_url).toBe(`${PATH}?sort=-a&per_page=10&page=2`);
  });

  it('answers an empty list with one page and no from/to', () => {
    const result = paginate([], 0, page(1));
    expect(result).toMatchObject({ current_page: 1, last_page: 1, from: null, to: null, total: 0, next_page_url: null, prev_page_url: null });
    expect(result.first_page_url).toBe(`${PATH}?page=1`);
    expect(result.links).toEqual([
      { url: null, label: '&laquo; Previous', active: false },
      { url: `${PATH}?page=1`, label: '1', active: true },
      { url: null, label: 'Next &raquo;', active: false },
    ]);
  });

  it('answers a page beyond the last with no data and from/to null', () => {
    const result = paginate([], 25, page(5));
    expect(result).toMatchObject({ current_page: 5, last_page: 3, from: null, to: null, next_page_url: null, prev_page_url: `${PATH}?page=4` });
    expect(labels(result.links)).toEqual(['1', '2', '3']);
    expect(result.links.some((l) => l.active)).toBe(false);
  });

  describe('link window (Laravel UrlWindow, 3 on each side)', () => {
    const linksFor = (current: number, last: number) => paginate([], last * 10, page(current)).links;

    it('lists every page while there are fewer than 14', () => {
      expect(labels(linksFor(1, 13))).toEqual(range(1, 13));
      expect(labels(linksFor(7, 13))).toEqual(range(1, 13));
    });

    it('shows 1..10, dots and the last two near the start', () => {
      expect(labels(linksFor(1, 14))).toEqual([...range(1, 10), '...', '13', '14']);
      expect(labels(linksFor(7, 50))).toEqual([...range(1, 10), '...', '49', '50']);
    });

    it('shows the first two, dots and the last ten near the end', () => {
      expect(labels(linksFor(8, 14))).toEqual(['1', '2', '...', ...range(5, 14)]);
      expect(labels(linksFor(44, 50))).toEqual(['1', '2', '...', ...range(41, 50)]);
      expect(labels(linksFor(50, 50))).toEqual(['1', '2', '...', ...range(41, 50)]);
    });

    it('slides around the current page in the middle', () => {
      expect(labels(linksFor(8, 50))).toEqual(['1', '2', '...', ...range(5, 11), '...', '49', '50']);
      expect(labels(linksFor(25, 50))).toEqual(['1', '2', '...', ...range(22, 28), '...', '49', '50']);
      expect(labels(linksFor(43, 50))).toEqual(['1', '2', '...', ...range(40, 46), '...', '49', '50']);
    });

    it('renders dots without url and marks the current page active', () => {
      const links = linksFor(25, 50);
      expect(links.filter((l) => l.label === '...')).toEqual([
        { url: null, label: '...', active: false },
        { url: null, label: '...', active: false },
      ]);
      expect(links.filter((l) => l.active)).toEqual([{ url: `${PATH}?page=25`, label: '25', active: true }]);
      expect(links[0]).toEqual({ url: `${PATH}?page=24`, label: '&laquo; Previous', active: false });
      expect(links.at(-1)).toEqual({ url: `${PATH}?page=26`, label: 'Next &raquo;', active: false });
    });
  });
});
