/** Why text with NUL or an unpaired surrogate is refused wherever it arrives (bodies, path parameters, files). */
export const UNSTORABLE_TEXT = 'may not hold a NUL character (\\u0000) or an unpaired surrogate: they cannot be stored';

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * True when PostgreSQL can store `text` as it is: no NUL (its text type refuses it) and no
 * unpaired UTF-16 surrogate (it has no UTF-8 form, so it would be stored as U+FFFD).
 */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}
