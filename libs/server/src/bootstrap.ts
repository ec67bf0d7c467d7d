import { Logger as NestLogger, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigModule, InvalidConfigError } from '@app/config';
import { Logger } from 'nestjs-pino';
import { configureApp, type ApiDocsOptions } from './configure-app';
import { ExpressServerAdapter } from './express-server.adapter';
import { QuietNestLogger } from './quiet-nest.logger';
import { closeGracefullyOnSignals } from './graceful-shutdown';
import { ServerConfig } from './server.config';

/**
 * Starts a service. Every feature's settings are validated as the app is built: a bad
 * one stops it with one sentence and exit code 1. `appModule` may be chosen from
 * settings (e.g. a worker-only module); a function may throw InvalidConfigError too.
 * `node main.js migrate` only migrates the app's schema and exits (the Kubernetes
 * migration Job runs it before a rollout).
 */
export async function bootstrap(appModule: Type | (() => Type), docs?: ApiDocsOptions): Promise<void> {
  try {
    ConfigModule.validateDeclared();
    const module = isModuleClass(appModule) ? appModule : appModule();
    if (process.argv[2] === 'migrate') return await migrate(module);
    const app = await NestFactory.create<NestExpressApplication>(module, new ExpressServerAdapter(), { bodyParser: false, bufferLogs: true, abortOnError: false });
    configureApp(app, docs);
    await app.listen(app.get(ServerConfig).PORT);
    closeGracefullyOnSignals(app);
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

/**
 * Builds the app's providers without starting it (no HTTP, no workers: those start on
 * init): the database provider migrates under its advisory lock as it is created.
 */
async function migrate(module: Type): Promise<void> {
  const context = await NestFactory.createApplicationContext(module, { bufferLogs: true, abortOnError: false });
  context.useLogger(new QuietNestLogger(context.get(Logger)));
  new NestLogger('Migrations').log('The schema is up to date.');
  await context.close();
}

function isModuleClass(value: Type | (() => Type)): value is Type {
  return Reflect.getMetadataKeys(value).length > 0;
}
