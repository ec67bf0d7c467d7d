import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { pageLocation } from './page-location';
import { parsePageQuery, type PageQuery } from './page-query';
import type { PageLocation } from './paginator';

/** Express setting that holds the public base URL for absolute page links. */
export const PUBLIC_BASE_URL_SETTING = 'public base url';

export interface Paging extends PageQuery {
  location: PageLocation;
}

/** The request's page, per_page (validated) and the absolute address used for page links. */
export const PageRequest = createParamDecorator((_: unknown, ctx: ExecutionContext): Paging => {
  const req = ctx.switchToHttp().getRequest<Request>();
  return { ...parsePageQuery(req.query), location: pageLocation(req, req.app.get(PUBLIC_BASE_URL_SETTING)) };
});
