import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, freshDatabase, launchChromium, startWebhookReceiver, TEST_OUTPUT, type WebhookReceiver } from '@app/testkit';
import type { Browser, Page } from 'playwright-core';

const ROOT = join(__dirname, '../../..');
const run = promisify(execFile);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureBuilt } = require(join(ROOT, 'tools/app-build.js')) as { ensureBuilt(app: string): Promise<void> };
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Polls `check` until it returns true, for at most `ms` (then fails naming `what`). */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Serious and critical axe-core violations of the page as it is now (axe runs through the debugger, not as a page script). */
async function axeProblems(page: Page): Promise<string[]> {
  const violations = (await page.evaluate(`${AXE}; axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`)) as Array<{
    id: string;
    impact: string;
    nodes: Array<{ target: string[] }>;
  }>;
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * The console in headless Chromium against the real services (PostgreSQL, Redis) that `npm start` boots, behind the
 * console's own server on one origin. Every page visited passes axe-core with no serious or critical violation and is
 * saved as a screenshot in tmp/test-output/.
 */
describe('console: the flows in headless Chromium', () => {
  let stack: ChildProcess;
  let output = '';
  let base: string;
  let browser: Browser;
  let page: Page;
  let receiver: WebhookReceiver;
  const cspViolations: string[] = [];
  const client = randomUUID();
  const creds = { docstoreToken: '', gatewayKey: '', ingestKey: '', pushToken: '' };

  /** Axe, then a screenshot at 1440 px and one at 360 px. */
  async function check(name: string) {
    await page.locator('main').waitFor();
    expect(await axeProblems(page)).toEqual([]);
    mkdirSync(TEST_OUTPUT, { recursive: true });
    await page.screenshot({ path: join(TEST_OUTPUT, `console-${name}.png`), fullPage: true });
    await page.setViewportSize({ width: 360, height: 800 });
    // Nothing wider than the screen but the scrolling table regions, once charts have followed the resize
    // (their ResizeObserver runs after layout): wait for it, and report the width if it never fits.
    const fits = await page
      .waitForFunction(() => document.documentElement.scrollWidth <= 360, undefined, { timeout: 5_000 })
      .then(
        () => true,
        () => false,
      );
    if (!fits) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: join(TEST_OUTPUT, `console-${name}-360.png`), fullPage: true });
    await page.setViewportSize({ width: 1440, height: 900 });
  }

  beforeAll(async () => {
    for (const app of ['docstore', 'gateway', 'ingest-push']) await ensureBuilt(app);
    await run(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'apps/console/vite.config.mts', '--logLevel', 'warn'], {
      cwd: ROOT,
    });
    const ports = { DOCSTORE_PORT: await freePort(), GATEWAY_PORT: await freePort(), INGEST_PUSH_PORT: await freePort(), CONSOLE_PORT: await freePort() };
    const { PATH, HOME, ENCRYPTION_KEYS } = process.env;
    const env = {
      PATH,
      HOME,
      ENCRYPTION_KEYS,
      DATABASE_URL: await freshDatabase(`t_${process.env.TEST_RUN_ID}_console`),
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:console:`, // npm start gives each app its own below it
    };
    stack = spawn(process.execPath, ['tools/start.js'], {
      cwd: ROOT,
      env: {
        ...env,
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
        SKIP_BUILD: '1',
        WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
        // Deliveries retried fast, and a new webhook heard at once (no cached "no webhooks" from earlier writes).
        WEBHOOK_RETRY_SCHEDULE: '0.5,0.5,0.5',
        WEBHOOK_RELAY_INTERVAL_MS: '100',
        WEBHOOK_CACHE_SECONDS: '0',
        SANDBOX_STATUS_DELAY_MS: '200',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stack.stdout!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
    stack.stderr!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
    base = `http://127.0.0.1:${ports.CONSOLE_PORT}`;
    await until(
      'the services and the console to answer',
      async () => {
        if (stack.exitCode !== null) throw new Error(`the stack exited:\n${output.slice(-4000)}`);
        const answers = await Promise.all(
          [ports.DOCSTORE_PORT, ports.GATEWAY_PORT, ports.INGEST_PUSH_PORT].map((p) =>
            fetch(`http://127.0.0.1:${p}/health`).then(
              (r) => r.ok,
              () => false,
            ),
          ),
        );
        const consoleUp = await fetch(base).then(
          (r) => r.ok,
          () => false,
        );
        return answers.every(Boolean) && consoleUp;
      },
      120_000,
    );
    const cli = async (...args: string[]) => (await run(process.execPath, ['tools/app-cli.js', ...args], { cwd: ROOT, env: { ...env } })).stdout.trim();
    creds.docstoreToken = await cli('docstore', 'token', '--client', client, '--name', 'console', '--scopes', '*');
    creds.gatewayKey = await cli('gateway', 'apikey', '--phone', '15550100001', '--phone-id', '106540352242922', '--name', 'console');
    creds.ingestKey = await cli('ingest-push', 'apikey', '--name', 'console', '--account', 'console');
    creds.pushToken = await cli('ingest-push', 'push-token', '--name', 'console', '--account', 'console');
    receiver = await startWebhookReceiver();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    if (stack && stack.exitCode === null) {
      const exited = new Promise((resolve) => stack.once('exit', resolve));
      stack.kill('SIGTERM');
      await exited;
    }
  }, 30_000);

  afterEach(() => expect(cspViolations).toEqual([]));

  it('signs in with all four credentials, keyboard only, and shows each service', async () => {
    await page.goto(`${base}/signin`);
    await check('signin');
    // Keyboard only: focus the first field and tab through the form.
    await page.getByLabel('Docstore client id').focus();
    await page.keyboard.type(client);
    await page.keyboard.press('Tab');
    await page.keyboard.type(creds.docstoreToken);
    await page.keyboard.press('Tab');
    await page.keyboard.type(creds.gatewayKey);
    await page.keyboard.press('Tab');
    await page.keyboard.type(creds.ingestKey);
    await page.keyboard.press('Tab');
    await page.keyboard.type(creds.pushToken);
    await page.keyboard.press('Enter');
    const nav = page.getByRole('navigation', { name: 'Services' });
    for (const title of ['Docstore', 'Gateway', 'Ingestion', 'Push']) await expect(nav.getByRole('heading', { name: title }).isVisible()).resolves.toBe(true);
    expect(await page.evaluate(() => window.localStorage.length)).toBe(0);
  });

  it('creates a document, edits it twice, shows the diff of two versions and restores the first', async () => {
    await page.goto(`${base}/docstore/documents?environment=production&context=shop&type=product`);
    await page.getByText('Create a document').click();
    await page.getByLabel('Key').fill('sku-1');
    await page.getByLabel('Data (a JSON object)').fill('{"name":"Mug","price":12.5}');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByTestId('version').filter({ hasText: '1' }).waitFor();
    for (const [version, price] of [
      ['2', 14],
      ['3', 15],
    ] as const) {
      await page.getByLabel('Data (saved as a new version)').fill(JSON.stringify({ name: 'Mug', price }));
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('version').filter({ hasText: version }).waitFor();
    }
    await page.getByLabel('From', { exact: true }).selectOption({ label: 'v1' });
    await page.getByLabel('To', { exact: true }).selectOption({ label: 'v3' });
    const diff = page.getByRole('region', { name: 'Diff of v1 and v3' });
    await diff.getByText('1 changed line.').waitFor();
    await expect(diff.locator('td.del').innerText()).resolves.toContain('12.5');
    await expect(diff.locator('td.ins').innerText()).resolves.toContain('15');
    await check('document');
    await page.getByRole('button', { name: 'Restore v1' }).click();
    await page.getByText('Restored as version 4.').waitFor();
    await page.getByTestId('version').filter({ hasText: '4' }).waitFor();
    await expect(page.getByLabel('Document data').innerText()).resolves.toContain('12.5');
  });

  it('shows a webhook delivery that failed once then succeeded, both attempts, and redelivers it', async () => {
    receiver.answer((_, n) => ({ status: n === 0 ? 500 : 200, body: n === 0 ? 'try again' : 'ok' }));
    await page.goto(`${base}/docstore/webhooks`);
    await page.getByLabel('Target URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Register' }).click();
    await expect(page.getByLabel('Signing secret').inputValue()).resolves.toMatch(/^whsec_/);
    // A write the webhook hears about.
    const res = await fetch(`${base}/api/v1/client/${client}/production/context/shop/type/product/sku-hook`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${creds.docstoreToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ environment: 'production', context: 'shop', type: 'product', key: 'sku-hook', data: { name: 'Cup' } }),
    });
    expect(res.status).toBe(201);
    // The retry is due half a second after the failure; a busy machine may take longer to run it.
    await until('the failed call and its retry at the receiver', () => receiver.calls.length >= 2, 60_000);
    const deliveries = page.getByRole('region', { name: 'Deliveries' });
    await until('a succeeded delivery in the log', async () => {
      await page.reload();
      await deliveries.or(page.getByText('No deliveries yet.')).first().waitFor();
      return (await deliveries.getByRole('cell', { name: 'succeeded', exact: true }).count()) > 0;
    });
    await deliveries.getByRole('button', { name: 'Attempts' }).first().click();
    const attempts = page.getByRole('region', { name: /^Attempts of delivery/ });
    await attempts.getByRole('cell', { name: '500', exact: true }).waitFor();
    await attempts.getByRole('cell', { name: '200', exact: true }).waitFor();
    await expect(attempts.getByText('try again').count()).resolves.toBe(1);
    await check('webhooks');
    await deliveries.getByRole('button', { name: 'Redeliver' }).first().click();
    await page.getByText('Redelivery queued.').waitFor();
    await until('the redelivery at the receiver', () => receiver.calls.length >= 3, 60_000);
    await until('the redelivery in the attempt log', async () => {
      await page.reload();
      await deliveries.getByRole('button', { name: 'Attempts' }).first().click();
      await attempts.getByRole('cell', { name: '200', exact: true }).first().waitFor();
      return (await attempts.getByRole('cell', { name: 'redeliver', exact: true }).count()) > 0;
    });
  }, 180_000);

  it('uploads a CSV with bad rows, shows its progress and rejected rows, and downloads the error CSV', async () => {
    const file = join(TEST_OUTPUT, 'console-sales.csv');
    mkdirSync(TEST_OUTPUT, { recursive: true });
    writeFileSync(
      file,
      [
        'OrderId;OrderDate;OrderStatus;ProductId;ProductPrice;StoreId;CustomerCPF_CNPJ;CustomerPhone;CustomerEmail',
        'C-1;2026-11-20T10:15:00.000Z;paid;P-1;12.5;S-1;12345678901;5511999990000;ana@example.com',
        'C-2;2026-11-20T10:15:00.000Z;paid;P-2;10;S-1;12345678901;5511999990000;ana@example.com',
        'C-3;2026-11-20T10:15:00.000Z;paid;P-3;7.5;S-1;12345678901;5511999990000;ana@example.com',
        'C-4;not-a-date;paid;P-4;1.5;S-1;12345678901;5511999990000;ana@example.com',
      ].join('\n') + '\n',
    );
    await page.goto(`${base}/ingestion/upload`);
    await page.getByLabel('Choose a file').setInputFiles(file);
    await page.getByTestId('rows-progress').filter({ hasText: '4 received, 2 inserted, 0 updated, 2 rejected' }).waitFor();
    const bar = page.locator('#bytes-progress');
    await expect(bar.evaluate((el: HTMLProgressElement) => el.value === el.max && el.max > 0)).resolves.toBe(true);
    const rejected = page.getByRole('region', { name: 'Rejected rows' });
    await rejected.getByRole('cell', { name: '3', exact: true }).first().waitFor();
    await rejected.getByRole('cell', { name: '5', exact: true }).first().waitFor();
    await check('upload');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the error CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv).toContain('ProductPrice');
    expect(csv).toContain('OrderDate');
    await page.goto(`${base}/ingestion/runs`);
    await page.getByRole('region', { name: 'Ingestion runs' }).getByRole('cell', { name: 'completed' }).waitFor();
    await check('runs');
  });

  it('sends a sandbox message and shows its statuses as they arrive', async () => {
    await page.goto(`${base}/gateway/send`);
    await page.getByLabel('Recipient phone number').fill('15550123456');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('message-status').filter({ hasText: 'read' }).waitFor();
    const timeline = page.locator('ol.timeline');
    for (const status of ['sent', 'delivered', 'read']) await timeline.getByText(status, { exact: true }).waitFor();
    await check('send');
    await page.goto(`${base}/gateway/messages`);
    await page.getByRole('region', { name: 'Messages' }).getByRole('cell', { name: '15550123456' }).first().waitFor();
    await check('messages');
  });

  it('creates a scheduled push batch, sees it counted, and cancels another', async () => {
    const batch = async (token: string) => {
      await page.goto(`${base}/push/batches`);
      await page.getByText('Send a batch').click();
      await page.getByLabel('Device tokens (one per line)').fill(token);
      await page.getByLabel('Message', { exact: true }).fill('Sale starts soon');
      await page.getByLabel('Date').fill('2030-01-01');
      await page.getByLabel('Time').fill('09:00');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.getByText('1 accepted, 0 rejected.').waitFor();
    };
    // A scheduled batch, counted on its page; another, cancelled before it is due.
    await batch('fcm-device-kept');
    await page.getByRole('status').getByRole('link').click();
    await page.getByTestId('batch-counts').filter({ hasText: 'scheduled 1' }).waitFor();
    await check('batch');
    await batch('fcm-device-cancelled');
    await page.getByRole('status').getByRole('link').click();
    await page.getByTestId('batch-counts').filter({ hasText: 'scheduled 1' }).waitFor();
    await page.getByRole('button', { name: 'Cancel what is still scheduled' }).click();
    await page.getByText('Cancelled now: 1.').waitFor();
    await page.getByTestId('batch-counts').filter({ hasText: 'cancelled 1' }).waitFor();
    // Both in the account's batch list, newest first, with their counts.
    await page.goto(`${base}/push/batches`);
    const batches = page.getByRole('region', { name: 'Batches' });
    await batches.getByRole('cell', { name: 'cancelled 1' }).first().waitFor();
    await batches.getByRole('cell', { name: 'scheduled 1' }).first().waitFor();
    await check('batches');
  });

  it('passes axe on the remaining pages, and charts each service on the overview', async () => {
    for (const path of [
      '/docstore/collections',
      '/docstore/schema?environment=production&context=shop&type=product',
      '/docstore/tokens',
      '/gateway/templates',
      '/gateway/webhooks',
      '/gateway/profile',
    ]) {
      await page.goto(`${base}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.getByText('Loading…').first().waitFor({ state: 'detached' });
      await check(path.split('?')[0].slice(1).replace('/', '-'));
    }
    await page.goto(`${base}/`);
    for (const name of ['Docstore', 'Gateway', 'Ingestion', 'Push']) await page.getByRole('img', { name: new RegExp(`^${name}, last 24 hours`) }).waitFor();
    // The documents written above are counted in this hour's bucket.
    await expect(
      page
        .locator('section.card', { has: page.locator('#stats-docstore') })
        .locator('dl.totals')
        .innerText(),
    ).resolves.toMatch(/[1-9]/);
    await check('overview');
  });

  it('shows a schema failure as the API words it', async () => {
    await page.goto(`${base}/docstore/schema?environment=production&context=shop&type=product`);
    await page.getByLabel('JSON Schema').fill('{"type":"object","properties":{"price":{"type":"nope"}}}');
    await page.getByRole('button', { name: 'Save schema' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('422:').waitFor();
    await expect(alert.getByRole('list', { name: 'Field errors' }).innerText()).resolves.toMatch(/price|type/);
  });

  it('signs out and leaves no credential in storage', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const stored = await page.evaluate(() => ({ session: window.sessionStorage.length, local: window.localStorage.length, cookies: document.cookie }));
    expect(stored).toEqual({ session: 0, local: 0, cookies: '' });
    await page.goto(`${base}/docstore/tokens`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });
});
