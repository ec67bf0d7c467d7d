import { DynamicModule, Global, Module } from '@nestjs/common';
import { Metrics } from './metrics.service';
import { ReadinessInfo } from './readiness-info';

/** One Metrics registry per app, labelled with the service's name, and its readiness info; injectable everywhere. */
@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(service: string): DynamicModule {
    return {
      module: ObservabilityModule,
      providers: [{ provide: Metrics, useFactory: () => new Metrics(service) }, ReadinessInfo],
      exports: [Metrics, ReadinessInfo],
    };
  }
}
