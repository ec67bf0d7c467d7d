/** The opt-out keywords an account has until it sets its own. */
export const DEFAULT_OPT_OUT_KEYWORDS = ['STOP', 'PARAR', 'SAIR', 'CANCELAR'];
/** The opt-in keywords an account has until it sets its own. */
export const DEFAULT_OPT_IN_KEYWORDS = ['START', 'VOLTAR'];

/** Keywords per list, and their longest length. */
export const MAX_KEYWORDS = 20;
export const MAX_KEYWORD_LENGTH = 32;

/**
 * A text folded for keyword matching: accents dropped (NFD, combining marks removed), upper case,
 * surrounding spaces and punctuation trimmed, inner spaces collapsed. `Párar!` and ` parar ` are `PARAR`.
 */
export function foldKeyword(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '')
    .replace(/\s+/g, ' ');
}

export interface Keywords {
  optOut: string[];
  optIn: string[];
}

/** What an inbound text does to the contact's opt-out: `out`, `in` or nothing. The whole text must be a keyword. */
export function keywordOf(text: string | null, keywords: Keywords): { change: 'out' | 'in'; keyword: string } | null {
  if (text === null || text.length > MAX_KEYWORD_LENGTH * 2) return null;
  const folded = foldKeyword(text);
  if (keywords.optOut.includes(folded)) return { change: 'out', keyword: folded };
  if (keywords.optIn.includes(folded)) return { change: 'in', keyword: folded };
  return null;
}

/** The text of an inbound message a keyword can be in: a text's body, a quick-reply button's text. */
export function inboundText(message: Record<string, unknown>): string | null {
  const part = (key: string, field: string): string | null => {
    const value = message[key];
    if (value === null || typeof value !== 'object') return null;
    const text = (value as Record<string, unknown>)[field];
    return typeof text === 'string' ? text : null;
  };
  if (message.type === 'text') return part('text', 'body');
  if (message.type === 'button') return part('button', 'text');
  return null;
}
