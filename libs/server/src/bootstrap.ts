import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigModule, InvalidConfigError } from '@app/config';
import { configureApp, type ApiDocsOptions } from './configure-app';
import { ServerConfig } from './server.config';

/**
 * Starts a service. Every feature's settings are validated as the app is built: a bad
 * one stops it with one sentence and exit code 1. `appModule` may be chosen from
 * settings (e.g. a worker-only module); a function may throw InvalidConfigError too.
 */
export async function bootstrap(appModule: Type | (() => Type), docs?: ApiDocsOptions): Promise<void> {
  try {
    ConfigModule.validateDeclared();
    const module = isModuleClass(appModule) ? appModule : appModule();
    const app = await NestFactory.create<NestExpressApplication>(module, { bodyParser: false, bufferLogs: true, abortOnError: false });
    configureApp(app, docs);
    await app.listen(app.get(ServerConfig).PORT);
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

function isModuleClass(value: Type | (() => Type)): value is Type {
  return Reflect.getMetadataKeys(value).length > 0;
}
