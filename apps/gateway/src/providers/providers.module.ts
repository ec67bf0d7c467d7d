import { Global, Module } from '@nestjs/common';
import { GatewayConfig } from '../config/gateway.config';
import { LocalMediaStorage, MediaStorage } from '../media/media.storage';
import { CHAT_PROVIDER, type ChatProvider } from './chat-provider';
import { CloudProvider } from './cloud.provider';
import { SandboxPlayback } from './sandbox-playback.service';
import { SandboxProvider } from './sandbox.provider';

/** The chat network the gateway talks to, chosen by GATEWAY_PROVIDER. */
@Global()
@Module({
  providers: [
    { provide: MediaStorage, useClass: LocalMediaStorage },
    SandboxPlayback,
    SandboxProvider,
    CloudProvider,
    {
      provide: CHAT_PROVIDER,
      inject: [GatewayConfig, SandboxProvider, CloudProvider],
      useFactory: (config: GatewayConfig, sandbox: SandboxProvider, cloud: CloudProvider): ChatProvider => (config.GATEWAY_PROVIDER === 'cloud' ? cloud : sandbox),
    },
  ],
  exports: [CHAT_PROVIDER, MediaStorage],
})
export class ProvidersModule {}
