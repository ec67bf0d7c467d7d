import { DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { RequestBodyConfig } from '@app/auth';
import { ConfigModule, type SettingDefaults } from '@app/config';
import { DatabaseConfig } from '@app/database';
import { AppExceptionFilter, createValidationPipe } from '@app/errors';
import { RateLimitConfig, RateLimitModule } from '@app/rate-limit';
import { RedisConfig, RedisModule } from '@app/redis';
import type { ClassConstructor } from 'class-transformer';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { ObservabilityModule } from '@app/observability';
import { DatabasePoolMetrics } from './database-pool.metrics';
import { HealthController } from './health.controller';
import { createRootLogger, loggerParams, ROOT_LOGGER } from './logger.config';
import { MetricsController } from './metrics.controller';
import { QueueMetricsExplorer } from './queue-metrics.explorer';
import { ServerConfig } from './server.config';

export interface CoreOptions {
  service: string;
  version: string;
  /** The app's own feature config classes, validated beside the core ones (server, database, Redis, rate limits, request bodies). */
  settings?: ClassConstructor<object>[];
  /** The app's defaults for core settings, e.g. `{ PORT: 3001, REDIS_PREFIX: 'docstore:' }`. */
  defaults?: SettingDefaults;
}

/** The feature config classes every service runs with. */
export const CORE_SETTINGS: ClassConstructor<object>[] = [ServerConfig, DatabaseConfig, RedisConfig, RateLimitConfig, RequestBodyConfig];

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
          inject: [ServerConfig],
          useFactory: (config: ServerConfig) => createRootLogger(config, service, version),
        },
      ],
      exports: [ROOT_LOGGER],
    };
  }
}

/**
 * What every service has: validated settings, structured logs, Redis, the shared rate
 * limiter, /health, /metrics, the one exception filter and the validation pipe, registered as
 * providers so tests boot exactly the production pipeline.
 */
@Module({})
export class CoreModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot({ features: [...CORE_SETTINGS, ...(options.settings ?? [])], defaults: options.defaults }),
        RootLoggerModule.forRoot(options.service, options.version),
        LoggerModule.forRootAsync({ inject: [ROOT_LOGGER], useFactory: loggerParams }),
        RedisModule,
        RateLimitModule,
        TerminusModule.forRoot({ logger: false }),
        ObservabilityModule.forRoot(options.service),
        DiscoveryModule,
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: APP_FILTER, useClass: AppExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        QueueMetricsExplorer,
        DatabasePoolMetrics,
      ],
    };
  }
}
