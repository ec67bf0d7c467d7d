import { Module } from '@nestjs/common';
import { PUSH_LANES, pushLanes } from './push-lanes.provider';
import { PushRepository } from './push.repository';
import { pushProvidersProvider } from './providers/push-providers.provider';

/** Fan-out and sending: the per-platform lanes (relay, queue, worker) and the providers. */
@Module({
  providers: [PushRepository, pushProvidersProvider, ...pushLanes()],
  exports: [PushRepository, ...PUSH_LANES],
})
export class PushDeliveryModule {}
