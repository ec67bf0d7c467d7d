/** A docstore token's scopes: a flat list, or permissions plus rules per environment and context. */
export type TokenScopes = string[] | GranularScopes;

export interface GranularScopes {
  permissions: string[];
  document_rules?: DocumentRule[];
}

export interface DocumentRule {
  environment: string;
  context: string;
  permissions: string[];
}

/** Grants every scope. */
export const ANY_SCOPE = '*';

/** Where a request acts; rules only apply on paths that name an environment and a context. */
export interface ScopeTarget {
  environment?: string;
  context?: string;
}

/**
 * A scope is granted when `permissions` (or the flat list) holds it or `*`, or when
 * a document rule whose environment and context match the target (`*` matches any)
 * holds it or `*`. Rules only add; nothing takes a permission away.
 */
export function hasScope(scopes: TokenScopes, scope: string, target: ScopeTarget = {}): boolean {
  const grants = (list: readonly string[]): boolean => list.includes(scope) || list.includes(ANY_SCOPE);
  if (Array.isArray(scopes)) return grants(scopes);
  if (grants(scopes.permissions)) return true;
  if (target.environment === undefined || target.context === undefined) return false;
  return (scopes.document_rules ?? []).some(
    (rule) =>
      (rule.environment === ANY_SCOPE || rule.environment === target.environment) &&
      (rule.context === ANY_SCOPE || rule.context === target.context) &&
      grants(rule.permissions),
  );
}

/** An environment and context a document rule names (`*` for any). */
export interface ScopeArea {
  environment: string;
  context: string;
}

/**
 * Where across the whole client a scope is granted: `'all'` by permissions (or a rule for `*`/`*`),
 * else the areas of the rules that grant it (none: nowhere). For reads that span collections.
 */
export function scopeAreas(scopes: TokenScopes, scope: string): 'all' | ScopeArea[] {
  const grants = (list: readonly string[]): boolean => list.includes(scope) || list.includes(ANY_SCOPE);
  if (Array.isArray(scopes)) return grants(scopes) ? 'all' : [];
  if (grants(scopes.permissions)) return 'all';
  const areas = (scopes.document_rules ?? []).filter((rule) => grants(rule.permissions)).map(({ environment, context }) => ({ environment, context }));
  return areas.some((a) => a.environment === ANY_SCOPE && a.context === ANY_SCOPE) ? 'all' : areas;
}
