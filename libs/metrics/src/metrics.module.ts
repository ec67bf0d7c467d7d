import { DynamicModule, Global, Module } from '@nestjs/common';
import { Metrics } from './metrics.service';

/** One Metrics registry per app, labelled with the service's name, injectable everywhere. */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(service: string): DynamicModule {
    return {
      module: MetricsModule,
      providers: [{ provide: Metrics, useFactory: () => new Metrics(service) }],
      exports: [Metrics],
    };
  }
}
