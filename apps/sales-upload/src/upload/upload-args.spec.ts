import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseUploadArgs, parseUploadCommand, UPLOAD_USAGE } from './upload-args';

const REQUIRED = ['--file', 'sales.csv', '--url', 'http://localhost:3003', '--api-key', 'k'];

describe('parseUploadArgs', () => {
  it('applies the defaults: CSV, parts of 64 MiB, 3 retries, the state beside the file', () => {
    expect(parseUploadArgs(REQUIRED)).toEqual({
      file: 'sales.csv',
      url: new URL('http://localhost:3003/DataInserterSales/api/sales'),
      apiKey: 'k',
      format: 'csv',
      maxPartBytes: 64 * 1024 ** 2,
      retries: 3,
      state: 'sales.csv.upload-state.json',
      gzip: false,
    });
  });

  it('takes every option, in any order', () => {
    const options = parseUploadArgs(['--retries', '0', '--gzip', '--state', '/tmp/s.json', '--part-bytes', '200000', '--format', 'json', ...REQUIRED]);
    expect(options).toMatchObject({ format: 'json', maxPartBytes: 200_000, retries: 0, state: '/tmp/s.json', gzip: true });
  });

  it('reads the format from a .json extension, in any case, unless --format says', () => {
    expect(parseUploadArgs(['--file', 'x.JSON', '--url', 'http://h', '--api-key', 'k']).format).toBe('json');
    expect(parseUploadArgs(['--file', 'x.json', '--url', 'http://h', '--api-key', 'k', '--format', 'csv']).format).toBe('csv');
    expect(parseUploadArgs(['--file', 'x.txt', '--url', 'http://h', '--api-key', 'k']).format).toBe('csv');
  });

  it.each([
    ['http://h:1', 'http://h:1/DataInserterSales/api/sales'],
    ['http://h:1///', 'http://h:1/DataInserterSales/api/sales'],
    ['https://h/prefix/', 'https://h/prefix/DataInserterSales/api/sales'],
    ['http://h/DataInserterSales/api/sales', 'http://h/DataInserterSales/api/sales'],
  ])('takes the service as %s or with the path already on it', (url, expected) => {
    expect(parseUploadArgs(['--file', 'f', '--url', url, '--api-key', 'k']).url.toString()).toBe(expected);
  });

  it('takes the key from --api-key, else the file --key-file names, else SALES_API_KEY', () => {
    const dir = mkdtempSync(join(tmpdir(), 'upload-args-'));
    try {
      const keyFile = join(dir, 'key');
      writeFileSync(keyFile, 'sales_from_file\n', { mode: 0o600 });
      const base = ['--file', 'f', '--url', 'http://h'];
      expect(parseUploadArgs([...base, '--key-file', keyFile], {}).apiKey).toBe('sales_from_file');
      expect(parseUploadArgs(base, { SALES_API_KEY: 'sales_from_env' }).apiKey).toBe('sales_from_env');
      expect(parseUploadArgs([...base, '--key-file', keyFile], { SALES_API_KEY: 'sales_from_env' }).apiKey).toBe('sales_from_file');
      expect(parseUploadArgs([...base, '--api-key', 'k', '--key-file', keyFile], {}).apiKey).toBe('k');
      expect(() => parseUploadArgs([...base, '--key-file', join(dir, 'missing')], {})).toThrow(`--key-file ${join(dir, 'missing')} cannot be read (ENOENT)`);
      writeFileSync(keyFile, ' \n');
      expect(() => parseUploadArgs([...base, '--key-file', keyFile], {})).toThrow(`--key-file ${keyFile} is empty`);
      expect(() => parseUploadArgs(base, {})).toThrow(UPLOAD_USAGE);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers --help (or -h) with the usage, whatever else is given', () => {
    expect(parseUploadCommand(['--help'])).toEqual({ help: true });
    expect(parseUploadCommand([...REQUIRED, '-h', '--bogus'])).toEqual({ help: true });
    expect(UPLOAD_USAGE).toContain('SALES_API_KEY');
  });

  it.each([
    [['--url', 'http://h', '--api-key', 'k']],
    [['--file', 'f', '--api-key', 'k']],
    [['--file', 'f', '--url', 'http://h']],
    [['--file', '', '--url', 'http://h', '--api-key', 'k']],
  ])('answers with the usage when a required option is missing: %j', (argv) => {
    expect(() => parseUploadArgs(argv, {})).toThrow(UPLOAD_USAGE);
  });

  it.each([
    [[...REQUIRED, 'extra'], /Unexpected argument 'extra'/],
    [[...REQUIRED, '--retry', '5'], /Unknown option '--retry'/],
    [[...REQUIRED, '--state'], /--state/],
    [[...REQUIRED, '--format', 'xml'], /--format is csv or json/],
    [[...REQUIRED, '--part-bytes', 'lots'], /--part-bytes is a whole number of at least 1, not lots/],
    [[...REQUIRED, '--part-bytes', '0'], /--part-bytes is a whole number of at least 1/],
    [[...REQUIRED, '--retries=-1'], /--retries is a whole number of at least 0/],
    [['--file', 'f', '--url', 'not a url', '--api-key', 'k'], /Invalid URL/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseUploadArgs(argv)).toThrow(message);
  });
});
