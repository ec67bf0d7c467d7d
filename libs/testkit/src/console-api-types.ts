import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(__dirname, '../../..');

/** Where the console keeps the types generated from a service's OpenAPI document. */
export function consoleApiTypesFile(service: 'docstore' | 'gateway' | 'ingest-push'): string {
  return join(ROOT, 'apps/console/src/api/generated', `${service}.ts`);
}

/**
 * The console's API types are generated from each service's /docs-json by openapi-typescript: compares the committed
 * file with what `document` generates now, and says what to run when they differ (null when current).
 * With UPDATE_API_TYPES=1 (`npm run api:types`) it writes the file instead.
 */
export async function consoleApiTypesProblem(document: object, service: 'docstore' | 'gateway' | 'ingest-push'): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), 'api-types-'));
  try {
    // openapi-typescript is an ES module: its command line runs it outside Jest's CommonJS loader.
    await writeFile(join(dir, 'openapi.json'), JSON.stringify(document));
    await promisify(execFile)(process.execPath, [
      join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
      join(dir, 'openapi.json'),
      '-o',
      join(dir, 'out.ts'),
    ]);
    const generated = await readFile(join(dir, 'out.ts'), 'utf8');
    const file = consoleApiTypesFile(service);
    if (process.env.UPDATE_API_TYPES === '1') {
      await writeFile(file, generated);
      return null;
    }
    const committed = await readFile(file, 'utf8').catch(() => '');
    return committed === generated ? null : `${file.slice(ROOT.length + 1)} is not what the ${service} OpenAPI document generates: run \`npm run api:types\``;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
