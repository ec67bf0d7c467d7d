import type { RegExpEngine } from 'ajv/dist/types';
import { RE2JS } from 're2js';

/**
 * Ajv's `code.regExp`: `pattern` and `patternProperties` compile with RE2JS, whose matching
 * time is linear in the input, so no stored pattern (`^(a+)+$`) can freeze the process.
 * RE2 has no lookaround or backreferences: such a pattern fails to compile, which refuses
 * the schema with 422 when it is stored.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    try {
      return RE2JS.compile(pattern);
    } catch (error) {
      throw new Error(`The pattern ${JSON.stringify(pattern)} is not supported (lookaround and backreferences are not): ${(error as Error).message}`);
    }
  },
  { code: 'RE2JS.compile' },
);
