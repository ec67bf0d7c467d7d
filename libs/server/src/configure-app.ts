import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ModuleRef } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AUTH_OPTIONS, type AuthOptions } from '@app/auth';
import { ERROR_BODY_SCHEMA, ERROR_BODY_SCHEMA_NAME, ERROR_RENDERER, type ErrorRenderer } from '@app/errors';
import { PUBLIC_BASE_URL_SETTING } from '@app/pagination';
import { Metrics } from '@app/observability';
import { Logger } from 'nestjs-pino';
import { ROOT_LOGGER } from './logger.config';
import { QuietNestLogger } from './quiet-nest.logger';
import { trackRequests } from './request-tracking.middleware';
import { ServerConfig } from './server.config';

/** How long the rest of a body is read after an early answer (nginx's lingering_timeout is 5 s too). */
const LINGER_MS = 5_000;

export interface ApiDocsOptions {
  title: string;
  description: string;
  version: string;
}

/**
 * Express settings shared by main.ts and the test kit, so tests run the production
 * pipeline: simple query parsing (filter[a.b] stays one key), no
 * automatic ETag hashing, proxy trust, OpenAPI at /docs with the security schemes of
 * the app's credential sources. Bodies are read by the auth guard, after authentication.
 */
export function configureApp(app: NestExpressApplication, docs?: ApiDocsOptions): INestApplication {
  const config = app.get(ServerConfig);
  app.useLogger(new QuietNestLogger(app.get(Logger)));
  // First middleware: every response, including /docs and body-parser errors, carries the request id,
  // is counted and logged; a request with a body that is answered before it is all read (401 before
  // reading, a 413 mid-stream) has the rest dropped for at most LINGER_MS, never read to its end.
  app.use(trackRequests(app.get(Metrics), app.get(ROOT_LOGGER), LINGER_MS));
  app.set('etag', false);
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('trust proxy', trustProxy(config.TRUST_PROXY));
  app.set(PUBLIC_BASE_URL_SETTING, config.PUBLIC_BASE_URL);
  if (docs) {
    const builder = new DocumentBuilder().setTitle(docs.title).setDescription(docs.description).setVersion(docs.version);
    for (const source of Object.values(authOptions(app)?.sources ?? {})) {
      if (source.docs) builder.addSecurity(source.docs.name, { ...source.docs.scheme, description: markdownLiteral(source.docs.scheme.description) });
    }
    const document = SwaggerModule.createDocument(app, builder.build());
    // The error answers (ApiErrors) point at one schema: the body this app's errors render.
    document.components = {
      ...document.components,
      schemas: { ...document.components?.schemas, [ERROR_BODY_SCHEMA_NAME]: errorRenderer(app)?.schema ?? ERROR_BODY_SCHEMA },
    };
    SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  }
  return app;
}

/**
 * Swagger UI renders descriptions as Markdown, where a placeholder such as `gw_<id>_<secret>` loses `<id>` as an
 * HTML tag: each word holding one becomes a code span, which shows it as written (and reads the same in the JSON).
 */
export function markdownLiteral(text: string | undefined): string | undefined {
  return text?.replace(/(`[^`]*`)|[^\s`]*<[^\s>]+>[^\s`]*/g, (word, code: string | undefined) => code ?? `\`${word}\``);
}

/** The app's auth options; a worker-only app has none. */
function authOptions(app: INestApplication): AuthOptions | undefined {
  return optional<AuthOptions>(app, AUTH_OPTIONS);
}

/** The app's own error body, when its spec has one. */
function errorRenderer(app: INestApplication): ErrorRenderer | undefined {
  return optional<ErrorRenderer>(app, ERROR_RENDERER);
}

function optional<T>(app: INestApplication, token: symbol): T | undefined {
  try {
    // Through ModuleRef: the app object Nest returns logs every failed lookup as an error before throwing it.
    return app.get(ModuleRef).get<T>(token, { strict: false });
  } catch {
    return undefined;
  }
}

function trustProxy(setting: string): boolean | number | string {
  if (setting === '' || setting === 'false') return false;
  if (setting === 'true') return true;
  return /^\d+$/.test(setting) ? Number(setting) : setting;
}
