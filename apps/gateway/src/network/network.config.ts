// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { DeployEnvironmentSettings, NotSandboxInProduction } from '@app/config';
import { IsIn, IsString, Matches } from 'class-validator';

export const GATEWAY_PROVIDERS = ['sandbox', 'cloud'] as const;
export type GatewayProviderName = (typeof GATEWAY_PROVIDERS)[number];

/** Which chat network the gateway speaks for, and through which provider. */
export class NetworkConfig extends DeployEnvironmentSettings {
  /** `sandbox` (default: behaves like the network, talks to nobody) or `cloud` (the WhatsApp Business Cloud API). */
  @IsIn(GATEWAY_PROVIDERS)
  @NotSandboxInProduction('cloud')
  GATEWAY_PROVIDER: GatewayProviderName = 'sandbox';

  /** The `messaging_product` constant: the lowercase name of the chat network. */
  @IsString()
  @Matches(/^[a-z][a-z0-9_]{0,31}$/)
  NETWORK: string = 'whatsapp';
}
