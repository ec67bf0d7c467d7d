import { hasScope, scopeAreas, type TokenScopes } from './token-scopes';

describe('hasScope', () => {
  describe('flat lists', () => {
    it('grants listed scopes only', () => {
      expect(hasScope(['document:read'], 'document:read')).toBe(true);
      expect(hasScope(['document:read'], 'document:create')).toBe(false);
      expect(hasScope([], 'document:read')).toBe(false);
    });

    it("grants everything with '*'", () => {
      expect(hasScope(['*'], 'token:manage')).toBe(true);
      expect(hasScope(['document:read', '*'], 'schema:manage', { environment: 'x', context: 'y' })).toBe(true);
    });

    it('ignores document rules semantics: a flat list applies everywhere', () => {
      expect(hasScope(['document:read'], 'document:read', { environment: 'production', context: 'shop' })).toBe(true);
    });
  });

  describe('granular scopes', () => {
    const scopes: TokenScopes = {
      permissions: ['document:read'],
      document_rules: [
        { environment: 'production', context: 'shop', permissions: ['document:create'] },
        { environment: '*', context: 'blog', permissions: ['document:update'] },
        { environment: 'staging', context: '*', permissions: ['*'] },
      ],
    };

    it('applies permissions with or without a target', () => {
      expect(hasScope(scopes, 'document:read')).toBe(true);
      expect(hasScope(scopes, 'document:read', { environment: 'anything', context: 'else' })).toBe(true);
      expect(hasScope({ permissions: ['*'] }, 'token:manage')).toBe(true);
    });

    it('grants a rule where environment and context both match', () => {
      expect(hasScope(scopes, 'document:create', { environment: 'production', context: 'shop' })).toBe(true);
      expect(hasScope(scopes, 'document:create', { environment: 'production', context: 'blog' })).toBe(false);
      expect(hasScope(scopes, 'document:create', { environment: 'staging2', context: 'shop' })).toBe(false);
    });

    it("treats '*' in a rule's environment, context or permissions as a wildcard", () => {
      expect(hasScope(scopes, 'document:update', { environment: 'dev', context: 'blog' })).toBe(true);
      expect(hasScope(scopes, 'document:update', { environment: 'dev', context: 'shop' })).toBe(false);
      expect(hasScope(scopes, 'schema:manage', { environment: 'staging', context: 'whatever' })).toBe(true);
      expect(hasScope(scopes, 'schema:manage', { environment: 'production', context: 'shop' })).toBe(false);
    });

    it('matches names exactly (no prefix or case folding)', () => {
      expect(hasScope(scopes, 'document:create', { environment: 'Production', context: 'shop' })).toBe(false);
      expect(hasScope(scopes, 'document:create', { environment: 'production', context: 'shop2' })).toBe(false);
      expect(hasScope(scopes, 'document', { environment: 'production', context: 'shop' })).toBe(false);
    });

    it('never grants through a rule without a full target', () => {
      expect(hasScope(scopes, 'token:manage', {})).toBe(false);
      expect(hasScope(scopes, 'token:manage', { environment: 'staging' })).toBe(false);
      expect(hasScope(scopes, 'document:create', { context: 'shop' })).toBe(false);
    });

    it('works without document_rules', () => {
      expect(hasScope({ permissions: [] }, 'document:read', { environment: 'a', context: 'b' })).toBe(false);
    });
  });
});

describe('scopeAreas', () => {
  it('answers all when permissions (or a flat list) grant the scope', () => {
    expect(scopeAreas(['document:read'], 'document:read')).toBe('all');
    expect(scopeAreas(['*'], 'document:read')).toBe('all');
    expect(scopeAreas({ permissions: ['*'] }, 'document:read')).toBe('all');
    expect(scopeAreas({ permissions: [], document_rules: [{ environment: '*', context: '*', permissions: ['document:read'] }] }, 'document:read')).toBe('all');
  });

  it('answers the areas of the rules that grant it, and none when nothing does', () => {
    const scopes = {
      permissions: ['token:manage'],
      document_rules: [
        { environment: 'production', context: 'shop', permissions: ['document:read'] },
        { environment: 'dev', context: '*', permissions: ['*'] },
        { environment: 'staging', context: 'blog', permissions: ['document:create'] },
      ],
    };
    expect(scopeAreas(scopes, 'document:read')).toEqual([
      { environment: 'production', context: 'shop' },
      { environment: 'dev', context: '*' },
    ]);
    expect(scopeAreas(['token:manage'], 'document:read')).toEqual([]);
    expect(scopeAreas({ permissions: [] }, 'document:read')).toEqual([]);
  });
});
