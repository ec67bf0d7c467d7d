import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { BaseServiceConfig } from '@app/config';
import { PUBLIC_BASE_URL_SETTING } from '@app/pagination';
import { Logger } from 'nestjs-pino';
import { jsonBodyGuard } from './json-body.middleware';
import { requestLog, ROOT_LOGGER } from './logger.config';
import { assignRequestId } from './request-id';

export interface ApiDocsOptions {
  title: string;
  description: string;
  version: string;
}

/**
 * Express settings shared by main.ts and the test kit, so tests run the production
 * pipeline: JSON body limit, simple query parsing (filter[a.b] stays one key), no
 * automatic ETag hashing, proxy trust, OpenAPI at /docs.
 */
export function configureApp(app: NestExpressApplication, docs?: ApiDocsOptions): INestApplication {
  const config = app.get(BaseServiceConfig);
  app.useLogger(app.get(Logger));
  // First middleware: every response, including /docs and body-parser errors, carries the request id.
  app.use((req: Parameters<typeof assignRequestId>[0], res: Parameters<typeof assignRequestId>[1], next: () => void) => {
    assignRequestId(req, res);
    next();
  });
  app.use(requestLog(app.get(ROOT_LOGGER)));
  app.set('etag', false);
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('trust proxy', trustProxy(config.TRUST_PROXY));
  app.set(PUBLIC_BASE_URL_SETTING, config.PUBLIC_BASE_URL);
  app.useBodyParser('json', { limit: config.BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'] });
  app.use(jsonBodyGuard);
  app.enableShutdownHooks();
  if (docs) {
    const document = SwaggerModule.createDocument(
      app,
      new DocumentBuilder()
        .setTitle(docs.title)
        .setDescription(docs.description)
        .setVersion(docs.version)
        .addBearerAuth({ type: 'http', scheme: 'bearer', description: '<TOKEN_ID>|<PLAIN_TEXT_TOKEN>' })
        .build(),
    );
    SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  }
  return app;
}

function trustProxy(setting: string): boolean | number | string {
  if (setting === '' || setting === 'false') return false;
  if (setting === 'true') return true;
  return /^\d+$/.test(setting) ? Number(setting) : setting;
}
