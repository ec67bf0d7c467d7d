import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { batchedDestination } from './logger.config';

describe('batchedDestination', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'log-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** What the file holds so far ('' before the destination has opened it: it opens asynchronously). */
  const contents = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
  const read = (file: string) =>
    contents(file)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { n: number; msg: string });
  const flush = (dest: ReturnType<typeof batchedDestination>) => new Promise<void>((resolve, reject) => dest.flush((err) => (err ? reject(err) : resolve())));
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('holds lines until a batch is full or flushed, then writes them whole and in order', async () => {
    const file = join(dir, 'small.log');
    const dest = batchedDestination(file);
    const logger = pino({ base: null }, dest);
    logger.info({ n: 1 }, 'first');
    logger.info({ n: 2 }, 'zweite Zeile – ünïcødé ✓');
    await settle();
    expect(contents(file)).toBe('');
    await flush(dest);
    expect(read(file).map((l) => [l.n, l.msg])).toEqual([
      [1, 'first'],
      [2, 'zweite Zeile – ünïcødé ✓'],
    ]);
  });

  it('writes on its own once a batch holds 4 KB', async () => {
    const file = join(dir, 'full.log');
    const dest = batchedDestination(file);
    const logger = pino({ base: null }, dest);
    for (let n = 0; n < 100; n++) logger.info({ n, padding: 'x'.repeat(40) }, 'line');
    for (let i = 0; i < 40 && contents(file) === ''; i++) await settle();
    const written = read(file);
    expect(written.length).toBeGreaterThan(0);
    expect(written.map((l) => l.n)).toEqual(written.map((_, i) => i));
    await flush(dest);
    expect(read(file).map((l) => l.n)).toEqual([...Array(100).keys()]);
  });
});
