import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { BaseServiceConfig, ConfigModule } from '@app/config';
import { AppExceptionFilter, createValidationPipe } from '@app/errors';
import { RateLimitModule } from '@app/rate-limit';
import { RedisModule } from '@app/redis';
import type { ClassConstructor } from 'class-transformer';
import { LoggerModule } from 'nestjs-pino';
import { HealthController } from './health.controller';
import { loggerParams } from './logger.config';

export interface CoreOptions<T extends BaseServiceConfig> {
  service: string;
  version: string;
  config: ClassConstructor<T>;
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
        LoggerModule.forRootAsync({
          inject: [BaseServiceConfig],
          useFactory: (config: BaseServiceConfig) => loggerParams(config, options.service, options.version),
        }),
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
