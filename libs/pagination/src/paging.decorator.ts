import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import type { Request } from 'express';
import { pageLocation } from './page-location';
import { parsePageQuery, type PageQuery } from './page-query';
import { pageParameterSchema } from './page-query.dto';
import type { PageLocation } from './paginator';

/** Express setting that holds the public base URL for absolute page links. */
export const PUBLIC_BASE_URL_SETTING = 'public base url';

export interface Paging extends PageQuery {
  location: PageLocation;
}

const PAGE_QUERY_DOCS = [
  ApiQuery({ name: 'page', required: false, schema: pageParameterSchema('page') }),
  ApiQuery({ name: 'per_page', required: false, schema: pageParameterSchema('per_page') }),
];

/**
 * The request's page, per_page (validated) and the absolute address used for page links.
 * It also declares `page` and `per_page` in the OpenAPI document, so a list that reads them
 * cannot forget to document them.
 */
export const PageRequest = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Paging => {
    const req = ctx.switchToHttp().getRequest<Request>();
    return { ...parsePageQuery(req.query), location: pageLocation(req, req.app.get(PUBLIC_BASE_URL_SETTING)) };
  },
  [
    (target, key) => {
      if (key === undefined) return;
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      if (descriptor) for (const declare of PAGE_QUERY_DOCS) declare(target, key, descriptor);
    },
  ],
);
