import 'reflect-metadata';
import { bootstrap } from '@app/server';
import { AppModule, GATEWAY_VERSION } from './app.module';

void bootstrap(AppModule, {
  title: 'Messaging gateway',
  description: 'Sends every message kind through the chat network.',
  version: GATEWAY_VERSION,
});
