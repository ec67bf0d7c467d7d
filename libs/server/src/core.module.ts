import { DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { BaseServiceConfig, ConfigModule } from '@app/config';
import { AppExceptionFilter, createValidationPipe } from '@app/errors';
import { RateLimitModule } from '@app/rate-limit';
import { RedisModule } from '@app/redis';
import type { ClassConstructor } from 'class-transformer';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { HealthController } from './health.controller';
import { createRootLogger, loggerParams, ROOT_LOGGER } from './logger.config';

export interface CoreOptions<T extends BaseServiceConfig> {
  service: string;
  version: string;
  config: ClassConstructor<T>;
}

/** Provides the root pino logger to everything (main.ts and the test kit use it for request logs). */
@Global()
@Module({})
class RootLoggerModule implements OnApplicationShutdown {
  constructor(@Inject(ROOT_LOGGER) private readonly logger: Logger) {}

  /** Writes what the asynchronous destination still holds before the process ends. */
  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) => this.logger.flush(() => resolve()));
  }

  static forRoot(service: string, version: string): DynamicModule {
    return {
      module: RootLoggerModule,
      providers: [
        {
          provide: ROOT_LOGGER,
          inject: [BaseServiceConfig],
          useFactory: (config: BaseServiceConfig) => createRootLogger(config, service, version),
        },
      ],
      exports: [ROOT_LOGGER],
    };
  }
}

/**
 * What every service has: validated config, structured logs, Redis, the shared rate
 * limiter, /health, the one exception filter and the validation pipe, registered as
 * providers so tests boot exactly the production pipeline.
 */
@Module({})
export class CoreModule {
  static forRoot<T extends BaseServiceConfig>(options: CoreOptions<T>): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot(options.config),
        RootLoggerModule.forRoot(options.service, options.version),
        LoggerModule.forRootAsync({ inject: [ROOT_LOGGER], useFactory: loggerParams }),
        RedisModule,
        RateLimitModule,
        TerminusModule.forRoot({ logger: false }),
      ],
      controllers: [HealthController],
      providers: [
        { provide: APP_FILTER, useClass: AppExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
