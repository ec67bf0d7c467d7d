import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { sourceFiles } from './folder-cycles';

// A class declared at the top level of a file (exported or not).
const CLASS = /^(?:export\s+)?(?:abstract\s+)?class\s+(\w+)/gm;

/**
 * Swagger names a DTO's schema after its class and keeps one schema per name: two classes of one name (a template's
 * `BodyComponent` and a message's) leave one shape in the OpenAPI document for both, and the generated client types
 * wrong. Lists each class name that more than one file under `srcDir` declares, among the files that use
 * `@nestjs/swagger`, as `Name: a.dto.ts, b.dto.ts` (paths relative to `srcDir`).
 */
export function schemaNameClashes(srcDir: string): string[] {
  const root = path.resolve(srcDir);
  const files = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes('@nestjs/swagger')) continue;
    for (const [, name] of text.matchAll(CLASS)) files.set(name, [...(files.get(name) ?? []), path.relative(root, file)]);
  }
  return [...files]
    .filter(([, where]) => where.length > 1)
    .map(([name, where]) => `${name}: ${where.sort().join(', ')}`)
    .sort();
}
