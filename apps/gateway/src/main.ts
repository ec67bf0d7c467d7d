import 'reflect-metadata';
import { bootstrap } from '@app/server';
import { AppModule, GATEWAY_VERSION } from './app.module';
import { GatewayConfig } from './config/gateway.config';

void bootstrap(AppModule, GatewayConfig, {
  title: 'Messaging gateway',
  description: 'Sends every message kind through the chat network.',
  version: GATEWAY_VERSION,
});
