const VARIABLE = /\{\{(\d+)\}\}/g;

/** The numbers of the `{{n}}` variables in a template text, in order. */
export function variablesOf(text: string): number[] {
  return [...text.matchAll(VARIABLE)].map((m) => Number(m[1]));
}
