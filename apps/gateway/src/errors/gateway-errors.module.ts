import { Global, Module } from '@nestjs/common';
import { ERROR_RENDERER } from '@app/errors';
import { NetworkErrorRenderer } from './network-error.renderer';

/** Makes the one exception filter render the network's error body under `api/`. */
@Global()
@Module({ providers: [{ provide: ERROR_RENDERER, useClass: NetworkErrorRenderer }], exports: [ERROR_RENDERER] })
export class GatewayErrorsModule {}
