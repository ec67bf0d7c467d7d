import { registerDecorator, type ValidationOptions } from 'class-validator';
import { DOCSTORE_SCOPES } from './docstore-scopes';
import { ANY_SCOPE } from './token-scopes';

const KNOWN = new Set([...DOCSTORE_SCOPES, ANY_SCOPE]);
const MAX_RULES = 100;

/** Why `value` is not a valid token scopes value, or null when it is. */
export function tokenScopesProblem(value: unknown): string | null {
  if (Array.isArray(value)) return permissionsProblem(value, 'scopes');
  if (typeof value !== 'object' || value === null) return 'scopes must be an array of scope strings or an object with permissions and document_rules.';
  const { permissions, document_rules: rules, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `scopes has unknown fields: ${Object.keys(rest).join(', ')}.`;
  const problem = permissionsProblem(permissions, 'scopes.permissions');
  if (problem) return problem;
  if (rules === undefined) return null;
  if (!Array.isArray(rules) || rules.length > MAX_RULES) return `scopes.document_rules must be an array of at most ${MAX_RULES} rules.`;
  for (const [i, rule] of rules.entries()) {
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) return `scopes.document_rules.${i} must be an object.`;
    const { environment, context, permissions: granted, ...extra } = rule as Record<string, unknown>;
    if (Object.keys(extra).length > 0) return `scopes.document_rules.${i} has unknown fields: ${Object.keys(extra).join(', ')}.`;
    for (const [name, v] of [
      ['environment', environment],
      ['context', context],
    ] as const) {
      if (typeof v !== 'string' || v.length === 0 || v.length > 255) return `scopes.document_rules.${i}.${name} must be a non-empty string (or *).`;
    }
    const ruleProblem = permissionsProblem(granted, `scopes.document_rules.${i}.permissions`);
    if (ruleProblem) return ruleProblem;
  }
  return null;
}

function permissionsProblem(value: unknown, path: string): string | null {
  if (!Array.isArray(value)) return `${path} must be an array of scope strings.`;
  const unknown = value.filter((s) => typeof s !== 'string' || !KNOWN.has(s));
  if (unknown.length > 0) return `${path} holds unknown scopes: ${unknown.map(String).join(', ')}; known scopes are ${[...KNOWN].join(', ')}.`;
  return null;
}

export function IsTokenScopes(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isTokenScopes',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => tokenScopesProblem(value) === null,
        defaultMessage: (args) => tokenScopesProblem(args?.value) ?? 'scopes is invalid.',
      },
    });
}
