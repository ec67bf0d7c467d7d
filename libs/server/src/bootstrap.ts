import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { BaseServiceConfig, InvalidConfigError, loadConfig } from '@app/config';
import type { ClassConstructor } from 'class-transformer';
import { configureApp, type ApiDocsOptions } from './configure-app';

/**
 * Starts a service. Settings are checked first: a bad one stops it with one sentence and
 * exit code 1. `appModule` may be chosen by the settings (e.g. a worker-only module).
 */
export async function bootstrap<C extends BaseServiceConfig>(
  appModule: Type | ((config: C) => Type),
  configClass: ClassConstructor<C>,
  docs?: ApiDocsOptions,
): Promise<void> {
  let config: C;
  try {
    config = loadConfig(configClass);
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const module = isModuleClass(appModule) ? appModule : appModule(config);
  const app = await NestFactory.create<NestExpressApplication>(module, { bodyParser: false, bufferLogs: true, abortOnError: false });
  configureApp(app, docs);
  await app.listen(app.get(BaseServiceConfig).PORT);
}

function isModuleClass<C>(value: Type | ((config: C) => Type)): value is Type {
  return Reflect.getMetadataKeys(value).length > 0;
}
