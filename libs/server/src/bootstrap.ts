import { Logger as NestLogger, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigModule, InvalidConfigError } from '@app/config';
import { Logger } from 'nestjs-pino';
import type { AddressInfo } from 'node:net';
import { configureApp, type ApiDocsOptions } from './configure-app';
import { ExpressServerAdapter } from './express-server.adapter';
import { ROOT_LOGGER } from './logger.config';
import { QuietNestLogger } from './quiet-nest.logger';
import { closeGracefullyOnSignals } from './graceful-shutdown';
import { ServerConfig } from './server.config';

export interface BootstrapOptions {
  /** The app's name as `npm start` knows it (`docstore`): the ready line says it, and a busy port names `<NAME>_PORT`. */
  name: string;
  docs?: ApiDocsOptions;
}

/**
 * Starts a service. Every feature's settings are validated as the app is built: a bad
 * one stops it with one sentence and exit code 1, as a busy port does. `appModule` may
 * be chosen from settings (e.g. a worker-only module); a function may throw
 * InvalidConfigError too. Once listening, the app logs one line with its URL and /docs.
 * `node main.js migrate` only migrates the app's schema and exits (the Kubernetes
 * migration Job runs it before a rollout).
 */
export async function bootstrap(appModule: Type | (() => Type), options: BootstrapOptions): Promise<void> {
  try {
    ConfigModule.validateDeclared();
    const module = isModuleClass(appModule) ? appModule : appModule();
    if (process.argv[2] === 'migrate') return await migrate(module);
    const app = await NestFactory.create<NestExpressApplication>(module, new ExpressServerAdapter(), {
      bodyParser: false,
      bufferLogs: true,
      abortOnError: false,
    });
    configureApp(app, options.docs);
    const config = app.get(ServerConfig);
    await app.listen(config.PORT).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'EADDRINUSE' ? new InvalidConfigError(portInUse(options.name, config.PORT)) : error;
    });
    closeGracefullyOnSignals(app);
    const url = readyUrl(config, (app.getHttpServer().address() as AddressInfo).port);
    app.get(ROOT_LOGGER).info({ url, docs: options.docs ? `${url}/docs` : undefined }, `${options.name} ready`);
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

/**
 * The sentence for a busy port. `npm start` (tools/start.js) passes DOCSTORE_PORT and the like
 * to the app as PORT, so both names are given: the one a user set is among them.
 */
export function portInUse(name: string, port: number): string {
  return `Port ${port} is in use (${name.toUpperCase().replace(/-/g, '_')}_PORT / PORT): stop what uses it or choose another.`;
}

/** Where the app can be reached: PUBLIC_BASE_URL when set, else loopback on the port it listens on. */
function readyUrl(config: ServerConfig, port: number): string {
  return (config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');
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
