import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '../../..');

/** The deployable apps: every apps/<name> with a src/main.ts. */
export function deployableApps(): string[] {
  return readdirSync(join(ROOT, 'apps'))
    .filter((name) => existsSync(join(ROOT, 'apps', name, 'src/main.ts')))
    .sort();
}
