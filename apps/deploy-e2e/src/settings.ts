import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ClassConstructor } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';
import { ROOT } from './workspace';

export interface Setting {
  name: string;
  /** No default and not optional: the app does not start without it. */
  required: boolean;
  /** The default the app runs with (its own default for shared settings, e.g. PORT 3001). */
  initial?: unknown;
}

export interface SettingsDeclaration {
  features: ClassConstructor<object>[];
  defaults?: Record<string, unknown>;
}

/**
 * The settings an app reads: every config class its modules declare (ConfigModule.forRoot,
 * called by CoreModule with the core classes and the app's own), with class-validator's
 * metadata for names and optionality. The app's modules are loaded in isolation by path,
 * so this checks exactly what the app validates at start.
 */
export function appSettings(app: string): Map<string, Setting> {
  const settings = new Map<string, Setting>();
  for (const { features, defaults = {} } of appConfigDeclarations(app)) {
    for (const cls of features) {
      const instance = new cls() as Record<string, unknown>;
      const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
      for (const name of new Set(metadata.map((m) => m.propertyName))) {
        const optional = metadata.some((m) => m.propertyName === name && m.type === 'conditionalValidation');
        const initial = defaults[name] ?? instance[name];
        settings.set(name, { name, required: !optional && initial === undefined, initial });
      }
    }
  }
  return settings;
}

/** The config classes an app validates at start (see appSettings), with the app's defaults for shared settings. */
export function appConfigDeclarations(app: string): SettingsDeclaration[] {
  const declarations: SettingsDeclaration[] = [];
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ConfigModule } = require('@app/config') as { ConfigModule: { forRoot(options: SettingsDeclaration): unknown } };
    const spy = jest.spyOn(ConfigModule, 'forRoot');
    const dir = join(ROOT, 'apps', app, 'src');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.module.ts'))) require(join(dir, file));
    declarations.push(...spy.mock.calls.map(([options]) => options));
    spy.mockRestore();
  });
  if (declarations.length === 0) throw new Error(`apps/${app}/src declares no settings (no ConfigModule.forRoot call)`);
  return declarations;
}
