import { parseArgs } from 'node:util';
import { parseSize, type SalesFileOptions } from './sales-file';

export const GENERATE_USAGE =
  'Usage: npm run -s ingest:generate -- --format csv|json (--rows N | --size 1GB) [--invalid-every K] [--seed S] [--crlf] [--out FILE]';

export interface GenerateArgs {
  file: SalesFileOptions;
  /** Where to write; stdout when absent. */
  out?: string;
}

export function parseGenerateArgs(argv: string[]): GenerateArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        format: { type: 'string', default: 'csv' },
        rows: { type: 'string' },
        size: { type: 'string' },
        'invalid-every': { type: 'string' },
        seed: { type: 'string' },
        crlf: { type: 'boolean', default: false },
        out: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${GENERATE_USAGE}`);
  }
  const text = (name: string): string | undefined => (values[name] as string | undefined) || undefined;
  const format = text('format') ?? 'csv';
  if (format !== 'csv' && format !== 'json') throw new Error('--format is csv or json');
  const rows = text('rows');
  const size = text('size');
  if (!rows && !size) throw new Error(GENERATE_USAGE);
  return {
    file: {
      format,
      rows: rows ? count('--rows', rows) : undefined,
      bytes: size ? parseSize(size) : undefined,
      invalidEvery: count('--invalid-every', text('invalid-every') ?? '0'),
      seed: count('--seed', text('seed') ?? '1'),
      crlf: values.crlf === true,
    },
    out: text('out'),
  };
}

function count(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${flag} is a whole number, not ${value}`);
  return n;
}
