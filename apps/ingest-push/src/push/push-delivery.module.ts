import { Module } from '@nestjs/common';
import { PUSH_LANES, pushLanes } from './push-lanes.provider';
import { PushLimits } from './push-limits.service';
import { OpenTokens } from './push-open-token';
import { PushConfig } from './push.config';
import { PushRepository } from './push.repository';
import { pushProvidersProvider } from './providers/push-providers.provider';

/** Fan-out and sending: the per-platform lanes (relay, queue, worker) and the providers. */
@Module({
  providers: [
    PushRepository,
    PushLimits,
    { provide: OpenTokens, inject: [PushConfig], useFactory: (config: PushConfig) => new OpenTokens(config.openTokenSecret) },
    pushProvidersProvider,
    ...pushLanes(),
  ],
  exports: [PushRepository, OpenTokens, ...PUSH_LANES],
})
export class PushDeliveryModule {}
