import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = join(__dirname, '../../..');
/** The first load's JavaScript budget, gzipped. */
const BUDGET = 200 * 1024;

/**
 * Builds the console with Vite into a scratch folder and weighs what the first load fetches: the entry
 * script and the chunks index.html preloads (every page is a lazy chunk fetched when it is opened).
 */
describe('console build', () => {
  let out: string;
  let html: string;

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'console-build-'));
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'apps/console/vite.config.mts', '--outDir', out, '--logLevel', 'warn'],
      // What ships: Jest's NODE_ENV=test would make Vite bundle React's development build (about 60 KB more).
      { cwd: ROOT, stdio: 'pipe', env: { ...process.env, NODE_ENV: 'production' } },
    );
    html = readFileSync(join(out, 'index.html'), 'utf8');
  }, 120_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it(`keeps the first load at most ${BUDGET / 1024} KB of JavaScript gzipped`, () => {
    const first = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"|<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1] ?? m[2]);
    expect(first.length).toBeGreaterThan(0);
    const gzipped = first.reduce((sum, src) => sum + gzipSync(readFileSync(join(out, src))).length, 0);
    const all = readdirSync(join(out, 'assets')).filter((f) => f.endsWith('.js'));
    // Pages are split off: far more chunks exist than the first load fetches.
    expect(all.length).toBeGreaterThan(first.length + 10);
    expect(gzipped).toBeLessThanOrEqual(BUDGET);
  });

  it('has no inline script, so the strict Content-Security-Policy holds', () => {
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\ssrc="/);
      expect(body.trim()).toBe('');
    }
    expect(html).not.toMatch(/\sstyle="/);
    expect(html).not.toMatch(/\son[a-z]+="/);
  });
});
