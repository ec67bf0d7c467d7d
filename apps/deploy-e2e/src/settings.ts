import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './workspace';

export interface Setting {
  name: string;
  /** Declared with `!` and no default: the app does not start without it. */
  required: boolean;
  /** The default as written in the class, e.g. `3001`. */
  initializer?: string;
}

interface ClassSource {
  base?: string;
  body: string;
}

/**
 * The settings an app reads, from its config class (`apps/<app>/src/config/*.config.ts`)
 * and the classes it extends in libs/ and apps/: every UPPER_CASE property. Parsed from
 * the source, since this project may not import the apps.
 */
export function appSettings(app: string): Map<string, Setting> {
  const classes = configClasses();
  const dir = join(ROOT, 'apps', app, 'src/config');
  const own = readdirSync(dir)
    .filter((f) => f.endsWith('.config.ts'))
    .flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/export class (\w+)/g)].map((m) => m[1]));
  if (own.length !== 1) throw new Error(`apps/${app}/src/config should hold exactly one config class, found ${own.join(', ') || 'none'}`);
  const chain: ClassSource[] = [];
  for (let name: string | undefined = own[0]; name; name = classes.get(name)?.base) {
    const cls = classes.get(name);
    if (!cls) throw new Error(`config class ${name} not found in libs/ or apps/`);
    chain.unshift(cls);
  }
  const settings = new Map<string, Setting>();
  for (const cls of chain) {
    for (const m of cls.body.matchAll(/^\s+(?:override\s+)?([A-Z][A-Z0-9_]*)([!?])?:\s*[^=;\n]+?(?:\s*=\s*([^;]+))?;/gm)) {
      settings.set(m[1], { name: m[1], required: m[2] === '!' && m[3] === undefined, initializer: m[3]?.trim() });
    }
  }
  return settings;
}

function configClasses(): Map<string, ClassSource> {
  const classes = new Map<string, ClassSource>();
  for (const file of sourceFiles([join(ROOT, 'libs'), join(ROOT, 'apps')])) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/export class (\w+)(?: extends (\w+))? \{\n([\s\S]*?)\n\}/g)) {
      if (/Config$/.test(m[1])) classes.set(m[1], { base: m[2], body: m[3] });
    }
  }
  return classes;
}

function sourceFiles(dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'test') continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.spec.ts')) out.push(path);
    }
  };
  dirs.forEach(walk);
  return out;
}
