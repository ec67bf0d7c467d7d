import { Global, Module } from '@nestjs/common';
import { CloudProvider } from './cloud/cloud.provider';
import { NetworkConfig } from './network/network.config';
import { CHAT_PROVIDER, type ChatProvider } from './network/chat-provider';
import { SandboxModule } from './sandbox/sandbox.module';
import { SandboxProvider } from './sandbox/sandbox.provider';

/** The chat network the gateway talks to, chosen by GATEWAY_PROVIDER; every context injects it as CHAT_PROVIDER. */
@Global()
@Module({
  imports: [SandboxModule],
  providers: [
    CloudProvider,
    {
      provide: CHAT_PROVIDER,
      inject: [NetworkConfig, SandboxProvider, CloudProvider],
      useFactory: (config: NetworkConfig, sandbox: SandboxProvider, cloud: CloudProvider): ChatProvider =>
        config.GATEWAY_PROVIDER === 'cloud' ? cloud : sandbox,
    },
  ],
  exports: [CHAT_PROVIDER],
})
export class ChatProviderModule {}
