import { ApiError, errorMessage } from './errors';
import { nextPage } from './paging';
import { formatAmount, formatAxis, formatCount, isEmpty, series, seriesLabel } from './stats';

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

describe('stats labels and numbers', () => {
  it('names series as people read them', () => {
    expect(seriesLabel('total', 'gateway')).toBe('All messages');
    expect(seriesLabel('sent', 'gateway')).toBe('Sent');
    expect(seriesLabel('webhook_deliveries.succeeded', 'docstore')).toBe('Webhook deliveries: succeeded');
    expect(seriesLabel('webhook_deliveries.total', 'docstore')).toBe('Webhook deliveries: all');
    expect(seriesLabel('android.invalid_token', 'push')).toBe('Android: invalid token');
  });

  it('formats counts with separators, axes compactly, and knows an empty window', () => {
    expect(formatCount(170005)).toBe('170,005');
    expect(formatAxis(1_200_000)).toBe('1.2M');
    expect(formatAxis(950)).toBe('950');
    expect(formatAmount('1234.5')).toBe('1,234.50');
    expect(formatAmount(0.0042, 4)).toBe('0.0042');
    expect(isEmpty({ hours: [1, 2], series: [{ name: 'a', values: [0, 0] }] })).toBe(true);
    expect(isEmpty({ hours: [1, 2], series: [{ name: 'a', values: [0, 3] }] })).toBe(false);
  });
});
