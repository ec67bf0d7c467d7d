import { hasScope, type TokenScopes } from './token-scopes';

/**
 * The first scope in `requested` that `holder` does not hold itself, named as the 403
 * says it (`document:read`, or `document:read in production/shop` for a document rule),
 * or null when the holder may grant all of it. A global permission needs the same
 * permission (or `*`) among the holder's own permissions; a rule's permission needs the
 * holder to have it for that environment and context, where a rule's `*` is only covered
 * by the holder's own `*`.
 */
export function ungrantableScope(holder: TokenScopes, requested: TokenScopes): string | null {
  const permissions = Array.isArray(requested) ? requested : requested.permissions;
  const global = permissions.find((scope) => !hasScope(holder, scope));
  if (global !== undefined) return global;
  for (const rule of Array.isArray(requested) ? [] : (requested.document_rules ?? [])) {
    const target = { environment: rule.environment, context: rule.context };
    const missing = rule.permissions.find((scope) => !hasScope(holder, scope, target));
    if (missing !== undefined) return `${missing} in ${rule.environment}/${rule.context}`;
  }
  return null;
}
