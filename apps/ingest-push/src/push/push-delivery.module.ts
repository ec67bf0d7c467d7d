import { Module } from '@nestjs/common';
import { PushFanOut } from './push-fan-out.service';
import { PushRepository } from './push.repository';
import { pushProvidersProvider } from './providers/push-providers.provider';

/** Fan-out and sending: the per-platform relays, queues and workers, and the providers. */
@Module({
  providers: [PushRepository, PushFanOut, pushProvidersProvider],
  exports: [PushRepository, PushFanOut],
})
export class PushDeliveryModule {}
