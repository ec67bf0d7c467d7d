/** The body text of stored components (empty when the BODY carries none, as in authentication templates). */
export function storedBodyText(components: unknown[]): string {
  const body = components.find((c) => String((c as { type?: unknown }).type).toUpperCase() === 'BODY') as { text?: unknown } | undefined;
  return typeof body?.text === 'string' ? body.text : '';
}

/**
 * Why the network's review would reject a well-formed template, or null when it approves:
 * a body that starts or ends with a variable, or two variables side by side.
 */
export function reviewRejection(bodyText: string): string | null {
  const trimmed = bodyText.trim();
  if (/^\{\{\d+\}\}/.test(trimmed) || /\{\{\d+\}\}$/.test(trimmed)) return 'INVALID_FORMAT';
  if (/\{\{\d+\}\}\s*\{\{\d+\}\}/.test(trimmed)) return 'INVALID_FORMAT';
  return null;
}
