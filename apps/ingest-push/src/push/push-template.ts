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
  // Most texts hold no placeholder at all; the others are filled in one pass over the original text, so a value that
  // itself looks like `{{x}}` is never expanded again.
  if (!text.includes('{{')) return { text, missing: [] };
  let missing: string[] | null = null;
  const filled = text.replace(PLACEHOLDER, (match, name: string) => {
    const value = values.get(name);
    if (value !== undefined) return value;
    if (missing === null) missing = [name];
    else if (!missing.includes(name)) missing.push(name);
    return match;
  });
  return missing === null ? { text: filled, missing: [] } : { text, missing };
}
