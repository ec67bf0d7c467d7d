import { markdownLiteral } from './configure-app';

describe('markdownLiteral', () => {
  it('puts each word holding a <placeholder> in a code span, so Swagger UI shows it', () => {
    expect(markdownLiteral('gw_<id>_<secret>')).toBe('`gw_<id>_<secret>`');
    expect(markdownLiteral('push_<id>_<secret> (npm run -s push:token)')).toBe('`push_<id>_<secret>` (npm run -s push:token)');
    expect(markdownLiteral('already `sales_<id>_<secret>` here')).toBe('already `sales_<id>_<secret>` here');
    expect(markdownLiteral('no placeholder')).toBe('no placeholder');
    expect(markdownLiteral(undefined)).toBeUndefined();
  });
});
