// A push worker process (PUSH_WORKERS=only) for tests that kill it; settings come from the environment.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { PushWorkerModule } from '../../src/push-worker.module';

void NestFactory.create(PushWorkerModule, { logger: false, abortOnError: false })
  .then((app) => app.init())
  .then(() => process.send?.('ready'));
