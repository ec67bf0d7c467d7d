import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, freePort, freshDatabase, launchChromium, startWebhookReceiver, TEST_OUTPUT, type WebhookReceiver } from '@app/testkit';
import type { Browser, Page } from 'playwright-core';

const ROOT = join(__dirname, '../../..');
const run = promisify(execFile);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureBuilt } = require(join(ROOT, 'tools/app-build.js')) as { ensureBuilt(app: string): Promise<void> };
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

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

const SCREENSHOTS = join(TEST_OUTPUT, 'console-screenshots');

/**
 * At 360 px: no horizontal page scroll (once charts have followed the resize: their ResizeObserver runs after
 * layout), and every visible button, link and field lies within the screen and is the element a click there hits.
 * A diff table that keeps its columns (and says it scrolls) is the one region allowed to scroll sideways.
 */
async function fitsPhone(page: Page): Promise<void> {
  const fits = await page
    .waitForFunction(() => document.documentElement.scrollWidth <= 360, undefined, { timeout: 5_000 })
    .then(
      () => true,
      () => false,
    );
  if (!fits) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  const unreachable = await page.evaluate(() => {
    const out: string[] = [];
    // With a modal open, its actions are the ones the user can reach.
    const scope: ParentNode = document.querySelector('dialog[open]') ?? document;
    const actions = Array.from(scope.querySelectorAll<HTMLElement>('button, a[href], input:not([type=hidden]), select, textarea, summary'));
    for (const el of actions) {
      if (el.closest('.scroll-cue, dialog:not([open]), .sr-only, .skip') || el.classList.contains('file')) continue;
      // Not rendered (display, visibility, a closed <details>), or a 1 px visually hidden control.
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      let rect = el.getBoundingClientRect();
      if (rect.width < 2 || rect.height < 2) continue;
      el.scrollIntoView({ block: 'center', inline: 'nearest' });
      rect = el.getBoundingClientRect();
      const x = rect.left + Math.min(rect.width / 2, 8);
      const y = rect.top + rect.height / 2;
      const hit = document.elementFromPoint(x, y);
      const name = `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"`;
      if (rect.left < 0 || rect.right > window.innerWidth + 1)
        out.push(`${name} is outside the screen (${Math.round(rect.left)}–${Math.round(rect.right)} px)`);
      else if (!hit || !(el === hit || el.contains(hit) || (el as HTMLLabelElement).control === hit))
        out.push(`${name} is covered by ${hit?.tagName ?? 'nothing'}`);
    }
    window.scrollTo(0, 0);
    return out;
  });
  expect(unreachable).toEqual([]);
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
  let gatewayUrl = '';

  /**
   * The page as it is now at 1440 px and 360 px, in the light and the dark theme: axe-core finds no serious or
   * critical problem in any of the four, each is saved as a screenshot in tmp/test-output/console-screenshots/, and at
   * 360 px nothing is wider than the screen and every visible action can be clicked where it is.
   */
  async function check(name: string) {
    await page.locator('main').waitFor();
    // Every chart's legend names its series in words, never a raw field name (`webhook_deliveries.failed`).
    const legends = await page.locator('.u-legend .u-series .u-label').allInnerTexts();
    expect(legends.filter((label) => /[._]/.test(label))).toEqual([]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const width of [1440, 360]) {
      await page.setViewportSize({ width, height: width === 360 ? 800 : 900 });
      if (width === 360) await fitsPhone(page);
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        // Charts redraw their canvas in the theme's colours on the next frames.
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
        expect({ name, width, colorScheme, problems: await axeProblems(page) }).toEqual({ name, width, colorScheme, problems: [] });
        await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}-${colorScheme}.png`), fullPage: true });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });
  }

  beforeAll(async () => {
    for (const app of ['docstore', 'gateway', 'ingest-push']) await ensureBuilt(app);
    // The build that ships (React's production build), not the development one Jest's NODE_ENV=test would give.
    await run(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'apps/console/vite.config.mts', '--logLevel', 'warn'], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
    });
    const ports = { DOCSTORE_PORT: await freePort(), GATEWAY_PORT: await freePort(), INGEST_PUSH_PORT: await freePort(), CONSOLE_PORT: await freePort() };
    gatewayUrl = `http://127.0.0.1:${ports.GATEWAY_PORT}`;
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
    await eventually(
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
        return answers.every(Boolean) && consoleUp ? true : undefined;
      },
      { what: 'the services and the console to answer', timeoutMs: 120_000 },
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
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Getting credentials' }).waitFor();
    await expect(page.getByLabel('Commands that make credentials').innerText()).resolves.toContain('npm run -s docstore:token');
    await check('landing');
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
    // The top bar names the credential: the docstore token's name (the CLI named it "console").
    await page.getByTestId('whoami').getByText('console').waitFor();
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

  it('updates the open document page live when someone else writes the document', async () => {
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const res = await fetch(`${base}/api/v1/client/${client}/production/context/shop/type/product/sku-1`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${creds.docstoreToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ environment: 'production', context: 'shop', type: 'product', key: 'sku-1', data: { name: 'Mug', price: 16 } }),
    });
    expect(res.status).toBe(200);
    await page.getByTestId('version').filter({ hasText: '5' }).waitFor();
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
    await eventually(() => (receiver.calls.length >= 2 ? true : undefined), { what: 'the failed call and its retry at the receiver', timeoutMs: 60_000 });
    const deliveries = page.getByRole('region', { name: 'Deliveries' });
    await eventually(
      async () => {
        await page.reload();
        await deliveries.or(page.getByText('No deliveries yet.')).first().waitFor();
        return (await deliveries.getByRole('cell', { name: 'succeeded', exact: true }).count()) > 0 ? true : undefined;
      },
      { what: 'a succeeded delivery in the log', timeoutMs: 20_000 },
    );
    // The status is a badge whose accessible name is the status word alone (its icon is decorative), in a tone.
    const succeeded = deliveries.getByRole('cell', { name: 'succeeded', exact: true }).first().locator('.badge');
    await expect(succeeded.getAttribute('class')).resolves.toContain('tone-success');
    await expect(succeeded.locator('svg').getAttribute('aria-hidden')).resolves.toBe('true');
    await deliveries.getByRole('button', { name: 'Attempts' }).first().click();
    const attempts = page.getByRole('region', { name: /^Attempts of delivery/ });
    await attempts.getByRole('cell', { name: 'failed', exact: true }).locator('.badge.tone-danger').waitFor();
    await attempts.getByRole('cell', { name: '500', exact: true }).waitFor();
    await attempts.getByRole('cell', { name: '200', exact: true }).waitFor();
    await expect(attempts.getByText('try again').count()).resolves.toBe(1);
    await check('webhooks');
    await deliveries.getByRole('button', { name: 'Redeliver' }).first().click();
    await page.getByText('Redelivery queued.').waitFor();
    await eventually(() => (receiver.calls.length >= 3 ? true : undefined), { what: 'the redelivery at the receiver', timeoutMs: 60_000 });
    await eventually(
      async () => {
        await page.reload();
        await deliveries.getByRole('button', { name: 'Attempts' }).first().click();
        await attempts.getByRole('cell', { name: '200', exact: true }).first().waitFor();
        return (await attempts.getByRole('cell', { name: 'redeliver', exact: true }).count()) > 0 ? true : undefined;
      },
      { what: 'the redelivery in the attempt log', timeoutMs: 20_000 },
    );
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
    // A run's own page: its status badge, counts and rejected rows.
    await page.getByRole('region', { name: 'Ingestion runs' }).getByRole('link').first().click();
    await page.getByTestId('run-status').waitFor();
    await check('run');
    // The lines loaded, newest first, and their totals by day.
    await page.goto(`${base}/ingestion/sales`);
    await page.getByRole('region', { name: 'Sale lines' }).getByRole('cell', { name: 'C-1', exact: true }).waitFor();
    await page.getByRole('region', { name: 'Totals by group' }).getByRole('cell', { name: '2026-11-20' }).waitFor();
    await check('ingestion-sales');
  }, 150_000);

  it('sends a sandbox message and shows its statuses as they arrive', async () => {
    // The sandbox's customer writes first: a free-form message needs the contact's service window open.
    const opened = await fetch(`${gatewayUrl}/api/Sandbox/Inbound`, {
      method: 'POST',
      headers: { apikey: creds.gatewayKey, version: '6.0', 'content-type': 'application/json' },
      body: JSON.stringify({ from: '15550123456', type: 'text', text: { body: 'Hello' } }),
    });
    expect(opened.status).toBe(200);
    await page.goto(`${base}/gateway/send`);
    await page.getByLabel('Recipient phone number').fill('15550123456');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('message-status').filter({ hasText: 'read' }).waitFor();
    // The form is ready for the next message.
    await expect(page.getByLabel('Recipient phone number').inputValue()).resolves.toBe('');
    const timeline = page.locator('ol.timeline');
    for (const status of ['sent', 'delivered', 'read']) await timeline.getByText(status, { exact: true }).waitFor();
    await check('send');
    await page.goto(`${base}/gateway/messages`);
    await page.getByRole('region', { name: 'Messages' }).getByRole('cell', { name: '15550123456' }).first().waitFor();
    await check('messages');
    // Today's usage counts the messages sent.
    await page.goto(`${base}/gateway/usage`);
    await page.getByRole('region', { name: 'Days' }).getByRole('row').nth(1).waitFor();
    await page.getByRole('img', { name: /^Messages and billable messages per day/ }).waitFor();
    await check('gateway-usage');
  }, 120_000);

  it('shows that conversation both ways in the inbox, and replies in its window', async () => {
    await page.goto(`${base}/gateway/inbox`);
    await page.getByRole('button', { name: 'Open the conversation with 15550123456' }).click();
    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.getByText('Hello', { exact: true }).waitFor();
    await messages.getByText('Hello from the console').waitFor();
    await page.getByLabel('Your reply').fill('Thanks for writing');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await messages.getByText('Thanks for writing').waitFor();
    await check('inbox');
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
    // Cancel asks first: keeping it changes nothing; confirming cancels.
    await page.getByRole('button', { name: 'Cancel what is still scheduled' }).click();
    const ask = page.getByRole('dialog', { name: 'Cancel this batch?' });
    await ask.getByRole('button', { name: 'Keep it' }).click();
    await ask.waitFor({ state: 'hidden' });
    await page.getByTestId('batch-counts').filter({ hasText: 'scheduled 1' }).waitFor();
    await page.getByRole('button', { name: 'Cancel what is still scheduled' }).click();
    await check('batch-cancel-confirm');
    await ask.getByRole('button', { name: 'Cancel the scheduled items' }).click();
    await page.getByText('Cancelled now: 1.').waitFor();
    await page.getByTestId('batch-counts').filter({ hasText: 'cancelled 1' }).waitFor();
    // Both in the account's batch list, newest first, with their counts.
    await page.goto(`${base}/push/batches`);
    const batches = page.getByRole('region', { name: 'Batches' });
    await batches.getByRole('cell', { name: 'cancelled 1' }).first().waitFor();
    await batches.getByRole('cell', { name: 'scheduled 1' }).first().waitFor();
    await check('batches');
  }, 120_000);

  it('passes axe on the remaining pages, and charts each service on the overview', async () => {
    for (const path of [
      '/docstore/collections',
      '/docstore/documents?environment=production&context=shop&type=product',
      '/no-such-page',
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
    // Each service: its chart, or the empty state when nothing happened (never a flat line of zeros).
    for (const [name, service] of [
      ['Docstore', 'docstore'],
      ['Gateway', 'gateway'],
      ['Ingestion', 'ingestion'],
      ['Push', 'push'],
    ])
      await page
        .getByRole('img', { name: new RegExp(`^${name}, last 24 hours`) })
        .or(page.getByTestId(`empty-${service}`))
        .waitFor();
    // Human labels and locale numbers, and a table of the same numbers for screen readers.
    const gateway = page.locator('section.card', { has: page.locator('#stats-gateway') });
    await gateway.locator('dl.totals').getByText('All messages').waitFor();
    await expect(gateway.locator('table caption').innerText()).resolves.toMatch(/Gateway, last 24 hours, by hour/);
    // The documents written above are counted in this hour's bucket.
    await expect(
      page
        .locator('section.card', { has: page.locator('#stats-docstore') })
        .locator('dl.totals')
        .innerText(),
    ).resolves.toMatch(/[1-9]/);
    await check('overview');
  }, 180_000);

  it('shows a schema failure as the API words it', async () => {
    await page.goto(`${base}/docstore/schema?environment=production&context=shop&type=product`);
    await page.getByLabel('JSON Schema').fill('{"type":"object","properties":{"price":{"type":"nope"}}}');
    await page.getByRole('button', { name: 'Save schema' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('422:').waitFor();
    await expect(alert.getByRole('list', { name: 'Field errors' }).innerText()).resolves.toMatch(/price|type/);
  });

  it("shows the gateway's field error beside its input, with the service's message", async () => {
    await page.goto(`${base}/gateway/send`);
    const to = page.getByLabel('Recipient phone number');
    await to.fill('not-a-number');
    await page.getByRole('button', { name: 'Send' }).click();
    const beside = page.locator('#send-to-error');
    await expect(beside.innerText()).resolves.toMatch(/phone number/);
    await expect(to.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(to.getAttribute('aria-describedby')).resolves.toContain('send-to-error');
    // Beside it: in the same field, right after the input and its hint.
    await expect(beside.evaluate((el) => el.parentElement === document.getElementById('send-to')?.parentElement)).resolves.toBe(true);
    await expect(page.getByRole('alert').innerText()).resolves.toMatch(/400: \(#100\) Invalid parameter[\s\S]*phone number/);
    await check('send-field-error');
  });

  it('at 360 px: the menu button opens the navigation; a token created and revoked after asking; redeliver reachable', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    try {
      await page.goto(`${base}/`);
      const nav = page.getByRole('navigation', { name: 'Services' });
      await expect(nav.isVisible()).resolves.toBe(false);
      await page.getByRole('button', { name: 'Menu' }).click();
      await nav.getByRole('link', { name: 'Tokens' }).click();
      await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
      await expect(nav.isVisible()).resolves.toBe(false);
      // The token this console is signed in with is marked.
      await page.getByTestId('current-token').waitFor();
      await page.getByLabel('Name', { exact: true }).fill('phone-token');
      await page.getByRole('button', { name: 'Create token' }).click();
      await expect(page.getByLabel('New token', { exact: true }).inputValue()).resolves.toMatch(/\|/);
      await page.getByRole('button', { name: 'Copy the new token to the clipboard' }).waitFor();
      // The form is empty again, and the list shows the new token (the cache was refreshed).
      await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('');
      const tokens = page.getByRole('region', { name: 'Tokens' });
      await tokens.getByText('phone-token').waitFor();
      await fitsPhone(page);
      // Disabling can be undone (the API switches the status back); the list follows each change.
      const row = tokens.getByRole('row').filter({ hasText: 'phone-token' });
      await page.getByRole('button', { name: 'Disable phone-token' }).click();
      await row.getByRole('cell', { name: 'inactive', exact: true }).waitFor();
      await page.getByRole('status').getByRole('button', { name: 'Undo' }).click();
      await row.getByRole('cell', { name: 'active', exact: true }).waitFor();
      // Revoke asks first; keeping it changes nothing.
      await page.getByRole('button', { name: 'Revoke phone-token' }).click();
      const ask = page.getByRole('dialog', { name: 'Revoke phone-token?' });
      await ask.waitFor();
      await check('tokens-revoke-confirm');
      await page.setViewportSize({ width: 360, height: 800 });
      await ask.getByRole('button', { name: 'Keep it' }).click();
      await ask.waitFor({ state: 'hidden' });
      await expect(row.getByRole('cell', { name: 'active', exact: true }).count()).resolves.toBe(1);
      await page.getByRole('button', { name: 'Revoke phone-token' }).click();
      await ask.getByRole('button', { name: 'Revoke' }).click();
      await page.getByText('Token revoked.').waitFor();
      // A revoked token is gone from the list (the cache was refreshed).
      await row.waitFor({ state: 'detached' });
      // The delivery log's Redeliver, reached without sideways scrolling.
      await page.getByRole('button', { name: 'Menu' }).click();
      await nav.getByRole('link', { name: 'Webhooks' }).first().click();
      await page
        .getByRole('button', { name: /^Deliveries of / })
        .first()
        .click();
      const deliveries = page.getByRole('region', { name: 'Deliveries' });
      await deliveries.getByRole('button', { name: 'Redeliver' }).first().waitFor();
      await fitsPhone(page);
      await deliveries.getByRole('button', { name: 'Redeliver' }).first().click();
      await page.getByText('Redelivery queued.').waitFor();
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  }, 120_000);

  it('cancels a running upload on the service: the ingestion ends cancelled', async () => {
    const file = join(TEST_OUTPUT, 'console-sales-large.csv');
    const header = 'OrderId;OrderDate;OrderStatus;ProductId;ProductPrice;StoreId;CustomerCPF_CNPJ;CustomerPhone;CustomerEmail\n';
    const rows = Array.from(
      { length: 300_000 },
      (_, i) => `L-${i};2026-11-20T10:15:00.000Z;paid;P-${i % 50};12.5;S-1;12345678901;5511999990000;ana@example.com`,
    );
    writeFileSync(file, header + rows.join('\n') + '\n');
    await page.goto(`${base}/ingestion/upload`);
    await page.getByLabel('Choose a file').setInputFiles(file);
    await page.getByRole('button', { name: 'Cancel upload' }).click();
    await page
      .getByRole('dialog', { name: /^Cancel the upload of/ })
      .getByRole('button', { name: 'Cancel the upload' })
      .click();
    await page.getByTestId('upload-status').filter({ hasText: 'cancelled' }).waitFor({ timeout: 30_000 });
    await expect(page.getByTestId('bytes-progress-text').innerText()).resolves.toMatch(/MB of [\d.,]+ MB sent/);
    // The service says so too.
    const runs = (await (await fetch(`${base}/DataInserterSales/api/sales/ingestions?status=cancelled`, { headers: { apiKey: creds.ingestKey } })).json()) as {
      data: Array<{ status: string; bytes: number }>;
    };
    expect(runs.data.length).toBeGreaterThan(0);
    expect(runs.data[0].status).toBe('cancelled');
    await check('upload-cancelled');
  }, 90_000);

  it("shows each service's audit log with the changes made through its API", async () => {
    const created = await fetch(`${base}/api/v1/client/${client}/tokens`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${creds.docstoreToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'audited', scopes: ['document:read'] }),
    });
    expect(created.status).toBe(201);
    const profile = await fetch(`${gatewayUrl}/api/Profiles`, {
      method: 'POST',
      headers: { apikey: creds.gatewayKey, version: '6.0', 'content-type': 'application/json' },
      body: JSON.stringify({ messaging_product: 'whatsapp', about: 'Mugs and plates' }),
    });
    expect(profile.status).toBe(201);
    const settings = await fetch(`${base}/api/pushm/settings`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${creds.pushToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ cap_max_pushes: 3, cap_window_hours: 24 }),
    });
    expect(settings.status).toBe(200);
    for (const [path, action] of [
      ['/docstore/audit', 'token.created'],
      ['/gateway/audit', 'profile.updated'],
      ['/ingestion/audit', 'push_settings.updated'],
    ]) {
      await page.goto(`${base}${path}`);
      await page.getByRole('region', { name: 'Audit records' }).getByRole('cell', { name: action, exact: true }).first().waitFor();
      await check(path.slice(1).replace('/', '-'));
    }
  }, 120_000);

  it('lists the keyboard shortcuts on ?, and follows one', async () => {
    await page.goto(`${base}/`);
    await page.locator('main').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.getByText('Push batches').waitFor();
    await check('shortcuts');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });
    await page.keyboard.press('g');
    await page.keyboard.press('b');
    await page.getByRole('heading', { name: 'Push batches', level: 1 }).waitFor();
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
