import { BaseServiceConfig } from '@app/config';

export class GatewayConfig extends BaseServiceConfig {
  override PORT: number = 3002;

  override REDIS_PREFIX: string = 'gateway:';
}
