import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';

/** Thrown when a setting is missing or invalid; its message is one sentence naming the setting. */
export class InvalidConfigError extends Error {
  override readonly name = 'InvalidConfigError';
}

/** Per-app defaults for settings of shared feature classes (e.g. the docstore's PORT 3001), used when the environment leaves them unset. */
export type SettingDefaults = Readonly<Record<string, string | number | boolean>>;

/**
 * Reads the settings a config class declares from the environment (falling back to
 * `defaults`), converts and validates them once. Only declared properties are read, so
 * the config object is exactly what the class says.
 */
export function loadConfig<T extends object>(cls: ClassConstructor<T>, env: NodeJS.ProcessEnv = process.env, defaults: SettingDefaults = {}): T {
  const names = new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(cls, '', true, false)
      .map((m) => m.propertyName),
  );
  const raw: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
    else if (defaults[name] !== undefined) raw[name] = String(defaults[name]);
  }
  const config = plainToInstance(cls, raw, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(config, { forbidUnknownValues: false });
  if (errors.length > 0) throw new InvalidConfigError(describe(errors[0], raw[errors[0].property]));
  return config;
}

/** Settings whose values are key material or credentials: an error names them but never prints the value. */
const SECRET_SETTING = /KEY|SECRET|TOKEN|PASSWORD/;

/** Names the value as it was set (not as converted: "abc", not NaN), with any URL password hidden. */
function describe(error: ValidationError, given: string | undefined): string {
  const reasons = Object.values(error.constraints ?? {}).join(', ');
  // A default can be refused too (a sandbox provider in production): say it was the default, not that it is missing.
  const unset = error.value === undefined ? 'it is missing' : `it is unset, so "${String(error.value)}" (the default)`;
  const value =
    given === undefined
      ? unset
      : SECRET_SETTING.test(error.property)
        ? 'the value is not shown'
        : `got "${given.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@')}"`;
  return `Setting ${error.property} is invalid (${reasons}); ${value}.`;
}

/** Validates several feature classes against one environment, as an app starts, and returns their settings side by side. */
export function loadSettings(
  features: readonly ClassConstructor<object>[],
  env: NodeJS.ProcessEnv = process.env,
  defaults: SettingDefaults = {},
): Record<string, unknown> {
  return Object.assign({}, ...features.map((cls) => loadConfig(cls, env, defaults)));
}
