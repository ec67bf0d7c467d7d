import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseArgs } from 'node:util';

export const SALES_PATH = '/DataInserterSales/api/sales';
/** Parts small enough that a rerun after Ctrl-C or a dropped connection resends little. */
const DEFAULT_PART_BYTES = 64 * 1024 * 1024;

/** Where the key may come from besides --api-key and --key-file: a setting keeps it out of `ps`. */
export const API_KEY_SETTING = 'SALES_API_KEY';

export const UPLOAD_USAGE = [
  'Usage: npm run -s ingest:upload -- --file sales.csv --url http://localhost:3003 [--key-file FILE | --api-key <key>] [--part-bytes N] [--retries 3] [--state FILE] [--format csv|json] [--gzip]',
  `  the key: ${API_KEY_SETTING}=<key> in the environment, --key-file (a file holding it), or --api-key (visible to other users in ps)`,
].join('\n');

export type SalesFormat = 'csv' | 'json';

export interface UploadOptions {
  file: string;
  /** The sales endpoint, `<base>/DataInserterSales/api/sales`. */
  url: URL;
  apiKey: string;
  format: SalesFormat;
  /** The most bytes one request may carry. */
  maxPartBytes: number;
  /** How many times a part is sent again after a network error, 408, 429 or 5xx. */
  retries: number;
  /** Where the confirmed parts are recorded. */
  state: string;
  /** Each part is sent gzip-compressed (Content-Encoding: gzip), compressed as it is read. */
  gzip: boolean;
}

/**
 * The upload's options from `--name value` pairs; the format follows the file's extension unless `--format` says.
 * The key: --api-key, else the file --key-file names, else SALES_API_KEY. `{ help: true }` for --help.
 */
export function parseUploadArgs(argv: string[], env: NodeJS.ProcessEnv = {}): UploadOptions {
  const options = parseUploadCommand(argv, env);
  if ('help' in options) throw new Error(UPLOAD_USAGE);
  return options;
}

/** As parseUploadArgs, or `{ help: true }` when --help is among the arguments (whatever else is). */
export function parseUploadCommand(argv: string[], env: NodeJS.ProcessEnv = {}): UploadOptions | { help: true } {
  if (argv.includes('--help') || argv.includes('-h')) return { help: true };
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        file: { type: 'string' },
        url: { type: 'string' },
        'api-key': { type: 'string' },
        'key-file': { type: 'string' },
        'part-bytes': { type: 'string' },
        retries: { type: 'string' },
        state: { type: 'string' },
        format: { type: 'string' },
        gzip: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${UPLOAD_USAGE}`);
  }
  const text = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const [file, base, keyFile] = [text('file'), text('url'), text('key-file')];
  const apiKey = text('api-key') || (keyFile ? readKeyFile(keyFile) : env[API_KEY_SETTING]?.trim());
  if (!file || !base || !apiKey) throw new Error(UPLOAD_USAGE);
  const format = text('format') || (extname(file).toLowerCase() === '.json' ? 'json' : 'csv');
  if (format !== 'csv' && format !== 'json') throw new Error('--format is csv or json');
  return {
    file,
    url: new URL(base.replace(/\/+$/, '').replace(new RegExp(`${SALES_PATH}$`), '') + SALES_PATH),
    apiKey,
    format,
    maxPartBytes: count('--part-bytes', text('part-bytes') || String(DEFAULT_PART_BYTES), 1),
    retries: count('--retries', text('retries') ?? '3', 0),
    state: text('state') || `${file}.upload-state.json`,
    gzip: values.gzip === true,
  };
}

function readKeyFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`--key-file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const key = text.trim();
  if (!key) throw new Error(`--key-file ${path} is empty`);
  return key;
}

function count(flag: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${flag} is a whole number of at least ${min}, not ${text}`);
  return value;
}
