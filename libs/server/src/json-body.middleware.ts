import type { NextFunction, Request, Response } from 'express';
import { ValidationFailedException } from '@app/errors';

/** As deep as MongoDB lets a document nest; deeper JSON is refused before anything recurses into it. */
export const MAX_JSON_DEPTH = 100;

/**
 * Checks a parsed JSON body once, without recursion, before any handler runs: no deeper
 * than MAX_JSON_DEPTH, no text PostgreSQL cannot store (NUL, unpaired surrogates) in any
 * string or key, and no `__proto__` key (reserved, as Firestore reserves `__*__` names).
 * A problem is a 422 naming where it is (`documents.3.data.name`).
 */
export function jsonBodyGuard(req: Request, _res: Response, next: NextFunction): void {
  const problem = bodyProblem(req.body);
  next(problem ? new ValidationFailedException({ [problem.path || 'body']: [problem.message] }) : undefined);
}

export function bodyProblem(body: unknown): { path: string; message: string } | null {
  if (body === null || typeof body !== 'object') return null;
  const pending: Array<[unknown, string, number]> = [[body, '', 1]];
  while (pending.length > 0) {
    const [value, path, depth] = pending.pop()!;
    if (typeof value === 'string') {
      if (unstorable(value)) return { path, message: UNSTORABLE };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return { path, message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.` };
    const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value);
    for (const [key, item] of entries) {
      const at = path ? `${path}.${key}` : key;
      if (key === '__proto__') return { path: at, message: 'A key named __proto__ is reserved.' };
      if (unstorable(key)) return { path: path || 'body', message: UNSTORABLE };
      pending.push([item, at, depth + 1]);
    }
  }
  return null;
}

const UNSTORABLE = 'Text may not hold a NUL character (\\u0000) or an unpaired surrogate: they cannot be stored.';
const LONE_SURROGATE = /\p{Cs}/u;

function unstorable(text: string): boolean {
  return text.includes('\u0000') || LONE_SURROGATE.test(text);
}
