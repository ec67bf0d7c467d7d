import { DynamicModule, Global, Module } from '@nestjs/common';
import type { ClassConstructor } from 'class-transformer';
import { BaseServiceConfig } from './base-service.config';
import { loadConfig } from './load-config';

@Global()
@Module({})
export class ConfigModule {
  /** Validates the settings once and provides them as `cls` (and as `BaseServiceConfig` for shared libs). */
  static forRoot<T extends BaseServiceConfig>(cls: ClassConstructor<T>): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: cls, useFactory: () => loadConfig(cls) },
        ...(cls === (BaseServiceConfig as unknown) ? [] : [{ provide: BaseServiceConfig, useExisting: cls }]),
      ],
      exports: [cls, BaseServiceConfig],
    };
  }
}
