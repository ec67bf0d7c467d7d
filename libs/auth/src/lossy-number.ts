/**
 * Numbers that JSON.parse cannot keep: more significant digits than a double holds
 * (`12345678901234567890`), or out of its range (`1e400`, `1e-400`). The check scans the
 * raw text only when a quick pattern finds a long run of digits or a three-digit
 * exponent, so ordinary bodies pay one native regex test.
 */
const SUSPICIOUS = /[0-9][0-9.]{15}|[eE][+-]?[0-9]{3}/;

/** The path (`data.big`, `documents.0.data.n`) of the first number that would change when parsed, or null. */
export function lossyNumberPath(raw: Buffer): string | null {
  if (!SUSPICIOUS.test(raw.toString('latin1'))) return null;
  return scan(raw.toString('utf8'));
}

interface Frame {
  array: boolean;
  index: number;
  /** The current member's key, as raw JSON string text (decoded only for a path). */
  key: string;
}

function scan(text: string): string | null {
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top && !top.array) {
        top.key = text.slice(i, j + 1);
        expectKey = false;
      }
      i = j;
    } else if (c === '{') {
      stack.push({ array: false, index: 0, key: '' });
      expectKey = true;
    } else if (c === '[') {
      stack.push({ array: true, index: 0, key: '' });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top.array) top.index++;
      else expectKey = true;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let j = i + 1;
      while (j < text.length && /[0-9eE+.-]/.test(text[j])) j++;
      if (changes(text.slice(i, j))) return stack.map((f) => (f.array ? String(f.index) : (JSON.parse(f.key) as string))).join('.');
      i = j - 1;
    }
  }
  return null;
}

/** True when the number text does not survive a round trip through a double. */
export function changes(token: string): boolean {
  const value = Number(token);
  return !Number.isFinite(value) || canonical(token) !== canonical(String(value));
}

/** Sign, significant digits and exponent: `-1.20e3` and `-1200` both give `-12e4` (0.12 × 10^4). */
function canonical(text: string): string {
  const negative = text.startsWith('-');
  const body = negative || text.startsWith('+') ? text.slice(1) : text;
  const [mantissa, exp = '0'] = body.toLowerCase().split('e');
  const [whole, fraction = ''] = mantissa.split('.');
  let digits = whole + fraction;
  let exponent = Number(exp) + whole.length;
  const leading = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(leading).replace(/0+$/, '');
  exponent -= leading;
  if (digits === '') return '0';
  return `${negative ? '-' : ''}${digits}e${exponent}`;
}
