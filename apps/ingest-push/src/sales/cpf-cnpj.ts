/** The digits of a CPF or CNPJ as written (`123.456.789-09` → `12345678909`): customers are matched by them. */
export function documentDigits(value: string): string {
  return value.replace(/\D/g, '');
}

/** SQL of the same digits, for a column (the expression of the `sales_account_customer_digits_idx` index). */
export function documentDigitsSql(column: string): string {
  return `regexp_replace(${column}, '[^0-9]', '', 'g')`;
}

/** A check digit of the mod-11 scheme both documents use, over `digits` with `weights`. */
function checkDigit(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * weights[i];
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

const CPF_1 = [10, 9, 8, 7, 6, 5, 4, 3, 2];
const CPF_2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

/**
 * Whether `value` is a CPF (11 digits) or CNPJ (14 digits) whose check digits are right, punctuation aside.
 * A number of one repeated digit (`111.111.111-11`) passes the arithmetic but is no one's, so it fails.
 */
export function validCpfCnpj(value: string): boolean {
  if (/[^\d.\-/\s]/.test(value)) return false;
  const d = documentDigits(value);
  if (/^(\d)\1*$/.test(d)) return false;
  if (d.length === 11) return checkDigit(d, CPF_1) === Number(d[9]) && checkDigit(d, CPF_2) === Number(d[10]);
  if (d.length === 14) return checkDigit(d, CNPJ_1) === Number(d[12]) && checkDigit(d, CNPJ_2) === Number(d[13]);
  return false;
}
