import { ungrantableScope } from './token-grant';

describe('ungrantableScope', () => {
  it('lets a holder grant what it holds, or less', () => {
    expect(ungrantableScope(['token:manage', 'document:read'], ['document:read'])).toBeNull();
    expect(ungrantableScope(['*'], ['*'])).toBeNull();
    expect(ungrantableScope(['*'], { permissions: ['token:manage'], document_rules: [{ environment: '*', context: '*', permissions: ['*'] }] })).toBeNull();
    expect(ungrantableScope(['token:manage'], [])).toBeNull();
  });

  it('names the first scope the holder lacks', () => {
    expect(ungrantableScope(['token:manage'], ['*'])).toBe('*');
    expect(ungrantableScope(['token:manage'], ['token:manage', 'document:read'])).toBe('document:read');
    expect(ungrantableScope(['token:manage'], { permissions: ['schema:manage'] })).toBe('schema:manage');
  });

  it('checks document rules against the holder for that environment and context', () => {
    const holder = {
      permissions: ['token:manage'],
      document_rules: [{ environment: 'production', context: '*', permissions: ['document:read'] }],
    };
    const rule = (environment: string, context: string, permissions: string[]) => ({
      permissions: [],
      document_rules: [{ environment, context, permissions }],
    });
    expect(ungrantableScope(holder, rule('production', 'shop', ['document:read']))).toBeNull();
    expect(ungrantableScope(holder, rule('production', '*', ['document:read']))).toBeNull();
    expect(ungrantableScope(holder, rule('staging', 'shop', ['document:read']))).toBe('document:read in staging/shop');
    expect(ungrantableScope(holder, rule('*', 'shop', ['document:read']))).toBe('document:read in */shop');
    expect(ungrantableScope(holder, rule('production', 'shop', ['*']))).toBe('* in production/shop');
    // A rule-scoped permission never becomes a global one.
    expect(ungrantableScope(holder, ['document:read'])).toBe('document:read');
  });
});
