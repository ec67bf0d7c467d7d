/** Query parameter names that carry credentials: their values never reach a log line. */
const CREDENTIAL_NAME = /api[-_.]?key|token|secret|passw(or)?d|^auth(orization)?$|signature|^sig$|^key$/i;

/**
 * The URL as logged: every credential-looking query parameter's value becomes `[redacted]`,
 * the rest is kept byte for byte (a refused request with `?apikey=<key>` must not leave the key
 * in the log either). The common case, a URL without a query, returns the string itself.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const pairs = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      return CREDENTIAL_NAME.test(decodeName(rawName)) ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}
