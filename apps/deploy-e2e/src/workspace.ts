import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '../../..');

/** The deployable apps: every apps/<name> with a src/main.ts that serves (a `serve` target), not a command-line tool such as sales-upload. */
export function deployableApps(): string[] {
  return readdirSync(join(ROOT, 'apps'))
    .filter((name) => existsSync(join(ROOT, 'apps', name, 'src/main.ts')) && serves(name))
    .sort();
}

function serves(app: string): boolean {
  const project = JSON.parse(readFileSync(join(ROOT, 'apps', app, 'project.json'), 'utf8')) as { targets?: Record<string, unknown> };
  return project.targets?.serve !== undefined;
}
