import { DynamicModule, Global, Module, type Provider } from '@nestjs/common';
import type { ClassConstructor } from 'class-transformer';
import { loadConfig, type SettingDefaults } from './load-config';

export interface SettingsOptions {
  /** Feature config classes, each validated on its own at start and injectable by its class. */
  features: ClassConstructor<object>[];
  /** The app's defaults for settings of shared classes (e.g. PORT, REDIS_PREFIX). */
  defaults?: SettingDefaults;
}

/**
 * Settings compose per feature: every lib declares its own config class (ServerConfig,
 * RedisConfig, RateLimitConfig, WebhookServiceConfig, ...) and the app lists the classes
 * it runs with, side by side. Each is validated once, when the app starts; a bad value
 * stops it with one sentence naming the setting.
 */
@Global()
@Module({})
export class ConfigModule {
  /** Every settings declaration made while the app's modules were defined. */
  private static readonly declared: SettingsOptions[] = [];

  /**
   * Validates every declared feature class against the environment, so `bootstrap` can
   * stop a bad start with one sentence before Nest builds anything (and logs a stack).
   */
  static validateDeclared(): void {
    for (const options of ConfigModule.declared) for (const cls of options.features) loadConfig(cls, undefined, options.defaults);
  }

  static forRoot(options: SettingsOptions): DynamicModule {
    ConfigModule.declared.push(options);
    const features = [...new Set(options.features)];
    const providers: Provider[] = features.map((cls) => ({ provide: cls, useFactory: () => loadConfig(cls, undefined, options.defaults) }));
    return {
      module: ConfigModule,
      providers,
      exports: features,
    };
  }
}
