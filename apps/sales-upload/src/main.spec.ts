import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './main';

describe('run', () => {
  let stderr: jest.SpyInstance;
  const written = () => stderr.mock.calls.map(([chunk]) => String(chunk)).join('');

  beforeEach(() => (stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true)));
  afterEach(() => stderr.mockRestore());

  it('lists the commands on help, and refuses a missing or unknown one with exit code 2', async () => {
    expect(await run(['help'])).toBe(0);
    expect(written()).toContain('Commands: upload, generate.');
    expect(await run([])).toBe(2);
    expect(await run(['constructor'])).toBe(2);
  });

  it('answers `upload --help` with the usage on stdout and exit code 0', async () => {
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await run(['upload', '--help'])).toBe(0);
      expect(stdout.mock.calls.map(([chunk]) => String(chunk)).join('')).toMatch(/^Usage: npm run -s ingest:upload/);
      expect(written()).toBe('');
    } finally {
      stdout.mockRestore();
    }
  });

  it('runs a command, and turns its failure into one sentence and exit code 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sales-tool-'));
    try {
      expect(await run(['generate', '--rows', '2', '--out', join(dir, 'f.csv')])).toBe(0);
      expect(readFileSync(join(dir, 'f.csv'), 'utf8').split('\n')).toHaveLength(4);
      expect(written()).toContain(`2 rows, `);
      expect(await run(['upload', '--file', join(dir, 'f.csv')])).toBe(1);
      expect(written()).toContain('\nUsage: npm run -s ingest:upload');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
