/** `{{name}}`, spaces allowed inside the braces: `{{ name }}`. */
const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/** A variable name: letters, digits, `_`, `-` and `.`, not starting with a digit or sign. */
export const VARIABLE_NAME = /^[A-Za-z_][\w.-]{0,63}$/;

/** The names of the placeholders in `text`, in order of first appearance. */
export function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/** Replaces every placeholder by its value; returns the names that have none (nothing is replaced then). */
export function fillTemplate(text: string, values: ReadonlyMap<string, string>): { text: string; missing: string[] } {
  const missing = placeholders(text).filter((name) => !values.has(name));
  if (missing.length > 0) return { text, missing };
  // One pass over the original text: a value that itself looks like `{{x}}` is never expanded again.
  return { text: text.replace(PLACEHOLDER, (_, name: string) => values.get(name)!), missing };
}
