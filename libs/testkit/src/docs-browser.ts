import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestApp } from './test-app';

/** Debian's Chromium (`apt-get install chromium`), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Where screenshots go: `<workspace>/tmp/test-output/` (git-ignored). */
export const TEST_OUTPUT = join(__dirname, '../../../tmp/test-output');

/**
 * Launches headless Chromium. Without it the test fails (never skips) with the command
 * that installs it.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: run \`.ci/browser-setup\` (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}

export interface TryOut {
  /** The operation's tag, method and path as the OpenAPI document has them. */
  tag: string;
  method: string;
  path: string;
  /** Parameter values to type in (the answers of the earlier operations, to use an id they returned). */
  params?: Record<string, string> | ((earlier: DocsAnswer[]) => Record<string, string>);
}

/** What Swagger UI shows after "Execute". */
export interface DocsAnswer {
  status: string;
  /** The response body as the page shows it. */
  body: string;
}

export interface DocsPageResult {
  /** Tags of the OpenAPI document's operations. */
  specTags: string[];
  /** Tag sections Swagger UI shows. */
  pageTags: string[];
  /** One answer per operation run, in order. */
  answers: DocsAnswer[];
  screenshot: string;
}

/**
 * Serves the app on a loopback port, opens `/docs` in Chromium, reads the tag sections,
 * authorises with `credentials` (security scheme name → value) through the Authorize
 * dialog, runs each operation with "Try it out" as the page offers it (the request body is
 * the document's first example, sent unedited), and saves a full-page screenshot.
 */
export async function exerciseDocsPage(t: TestApp, name: string, credentials: Record<string, string>, ...tryOuts: TryOut[]): Promise<DocsPageResult> {
  await new Promise<void>((resolve) => t.http.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
  const spec = (await (await fetch(`${base}/docs-json`)).json()) as { paths: Record<string, Record<string, { tags?: string[] }>> };
  const specTags = [...new Set(Object.values(spec.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? [])))].sort();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/docs`);
    await page.locator('.opblock-tag').first().waitFor();
    const pageTags = (await page.locator('.opblock-tag').evaluateAll((els) => els.map((el) => el.getAttribute('data-tag') ?? ''))).sort();

    await authorize(page, credentials);
    const answers: DocsAnswer[] = [];
    for (const op of tryOuts) answers.push(await execute(page, op, typeof op.params === 'function' ? op.params(answers) : (op.params ?? {})));

    mkdirSync(TEST_OUTPUT, { recursive: true });
    const screenshot = join(TEST_OUTPUT, `docs-${name}.png`);
    await page.screenshot({ path: screenshot, fullPage: true });
    return { specTags, pageTags, answers, screenshot };
  } finally {
    await browser.close();
  }
}

async function authorize(page: Page, credentials: Record<string, string>): Promise<void> {
  await page.locator('button.authorize').first().click();
  const dialog = page.locator('.dialog-ux .modal-ux');
  await dialog.waitFor();
  for (const [scheme, value] of Object.entries(credentials)) {
    const block = dialog.locator('.auth-container').filter({ hasText: scheme });
    await block.locator('input').first().fill(value);
    await block.locator('button.authorize').click();
  }
  await dialog.locator('button.btn-done').first().click();
}

async function execute(page: Page, op: TryOut, params: Record<string, string>): Promise<DocsAnswer> {
  const block = page
    .locator(`.opblock-${op.method.toLowerCase()}`)
    .filter({ has: page.locator(`[data-path="${op.path}"]`) })
    .first();
  if (!(await block.isVisible())) await page.locator(`.opblock-tag[data-tag="${op.tag}"]`).click();
  await block.locator('.opblock-summary').first().click();
  await block.locator('button.try-out__btn').click();
  for (const [param, value] of Object.entries(params)) {
    // An enum parameter (e.g. the gateway's `version` header) is a select, anything else a text input.
    const row = block.locator(`tr[data-param-name="${param}"]`);
    if ((await row.locator('select').count()) > 0) await row.locator('select').selectOption(value);
    else await row.locator('input').fill(value);
  }
  await block.locator('button.execute').click();
  const response = block.locator('.live-responses-table .response').first();
  await response.locator('.response-col_status').waitFor();
  const status = (await response.locator('.response-col_status').innerText()).trim();
  const body = response.locator('.response-col_description pre.microlight').first();
  return { status, body: (await body.count()) > 0 ? (await body.innerText()).trim() : '' };
}
