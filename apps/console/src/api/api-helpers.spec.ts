import { ApiError, errorMessage } from './errors';
import { nextPage } from './paging';
import { series } from './stats';

describe('error messages as the APIs word them', () => {
  it('reads {message}, the gateway {error: {message}} and text', () => {
    expect(errorMessage(404, 'Not Found', { message: 'Document not found.' })).toBe('Document not found.');
    expect(errorMessage(400, 'Bad Request', { error: { message: '(#100) Invalid parameter', code: 100 } })).toBe('(#100) Invalid parameter');
    expect(errorMessage(401, 'Unauthorized', { error: 'Unauthorized' })).toBe('Unauthorized');
    expect(errorMessage(502, 'Bad Gateway', '')).toBe('502 Bad Gateway');
  });

  it('lists field errors of both 422 shapes', () => {
    expect(new ApiError(422, 'x', { errors: { per_page: ['too big'] } }).fieldErrors).toEqual([{ field: 'per_page', message: 'too big' }]);
    expect(new ApiError(422, 'x', { errors: [{ property: 'data.price', message: 'must be number' }] }).fieldErrors).toEqual([
      { field: 'data.price', message: 'must be number' },
    ]);
  });
});

describe('paging', () => {
  it('follows the Laravel envelope by page and the gateway by cursor', () => {
    expect(nextPage({ current_page: 2, next_page_url: 'http://x?page=3' })).toEqual({ page: 3 });
    expect(nextPage({ current_page: 2, next_page_url: null })).toBeNull();
    expect(nextPage({ paging: { cursors: { after: 'abc' }, next: 'http://x' } })).toEqual({ after: 'abc' });
    expect(nextPage({ paging: { cursors: { after: 'abc' } } })).toBeNull();
    expect(nextPage({ paging: { cursors: { after: null } } })).toBeNull();
  });
});

describe('stats series', () => {
  it('flattens flat and grouped counts into one series per name, 0 where a bucket lacks one', () => {
    const s = series({
      data: [
        { hour: '2026-11-25T10:00:00Z', total: 2, by_status: { sent: 2 } },
        {
          hour: '2026-11-25T11:00:00Z',
          total: 1,
          by_status: { read: 1 },
          by_platform: { android: { failed: 1 } },
          webhook_deliveries: { total: 1, by_status: { failed: 1 } },
        },
      ],
    });
    expect(s.hours).toEqual([Date.parse('2026-11-25T10:00:00Z') / 1000, Date.parse('2026-11-25T11:00:00Z') / 1000]);
    expect(s.series).toEqual([
      { name: 'total', values: [2, 1] },
      { name: 'sent', values: [2, 0] },
      { name: 'read', values: [0, 1] },
      { name: 'android.failed', values: [0, 1] },
      { name: 'webhook_deliveries.total', values: [0, 1] },
      { name: 'webhook_deliveries.failed', values: [0, 1] },
    ]);
  });
});
