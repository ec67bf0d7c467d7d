import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { BaseServiceConfig, InvalidConfigError, loadConfig } from '@app/config';
import type { ClassConstructor } from 'class-transformer';
import { configureApp, type ApiDocsOptions } from './configure-app';

/** Starts a service. Settings are checked first: a bad one stops it with one sentence and exit code 1. */
export async function bootstrap(appModule: Type, config: ClassConstructor<BaseServiceConfig>, docs?: ApiDocsOptions): Promise<void> {
  try {
    loadConfig(config);
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const app = await NestFactory.create<NestExpressApplication>(appModule, { bodyParser: false, bufferLogs: true, abortOnError: false });
  configureApp(app, docs);
  await app.listen(app.get(BaseServiceConfig).PORT);
}
