import { isStorableText, UNSTORABLE_TEXT } from '@app/errors';

/** As deep as MongoDB lets a document nest; deeper JSON is refused before anything recurses into it. */
export const MAX_JSON_DEPTH = 100;

export interface BodyProblem {
  /** Where the problem is (`documents.3.data.name`), or '' for the body as a whole. */
  path: string;
  message: string;
  /** The body holds more values than allowed: a size problem (413), not a content one (422). */
  tooLarge?: boolean;
}

/**
 * Checks a parsed JSON body once, without recursion: at most `maxValues` values, no
 * deeper than MAX_JSON_DEPTH, no text PostgreSQL cannot store (NUL, unpaired surrogates)
 * in any string or key, and no `__proto__` key (reserved, as Firestore reserves `__*__`
 * names). Paths are only built for containers, so a huge flat array costs one pass.
 */
export function bodyProblem(body: unknown, maxValues = Number.POSITIVE_INFINITY): BodyProblem | null {
  if (body === null || typeof body !== 'object') return null;
  const pending: Array<[object, string, number]> = [[body, '', 1]];
  let values = 0;
  while (pending.length > 0) {
    const [value, path, depth] = pending.pop()!;
    if (depth > MAX_JSON_DEPTH) return { path, message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.` };
    const at = (key: string): string => (path ? `${path}.${key}` : key);
    if (Array.isArray(value)) {
      values += value.length;
      if (values > maxValues) return tooMany(maxValues);
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'string') {
          if (!isStorableText(item)) return { path: at(String(i)), message: UNSTORABLE };
        } else if (item !== null && typeof item === 'object') pending.push([item, at(String(i)), depth + 1]);
      }
      continue;
    }
    const keys = Object.keys(value);
    values += keys.length;
    if (values > maxValues) return tooMany(maxValues);
    for (const key of keys) {
      if (key === '__proto__') return { path: at(key), message: 'A key named __proto__ is reserved.' };
      if (!isStorableText(key)) return { path: path || 'body', message: UNSTORABLE };
      const item: unknown = (value as Record<string, unknown>)[key];
      if (typeof item === 'string') {
        if (!isStorableText(item)) return { path: at(key), message: UNSTORABLE };
      } else if (item !== null && typeof item === 'object') pending.push([item, at(key), depth + 1]);
    }
  }
  return null;
}

function tooMany(maxValues: number): BodyProblem {
  return { path: '', message: `The request body holds more than ${maxValues} values.`, tooLarge: true };
}

const UNSTORABLE = `Text ${UNSTORABLE_TEXT}.`;
