import type { Request } from 'express';
import type { PageLocation } from './paginator';

/**
 * The absolute address of the list being paged: the configured public base URL when
 * there is one (behind proxies), else the request's own scheme and host.
 */
export function pageLocation(req: Request, publicBaseUrl?: string): PageLocation {
  const base = publicBaseUrl ? publicBaseUrl.replace(/\/+$/, '') : `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  const [pathname, search = ''] = req.originalUrl.split('?', 2);
  return { path: `${base}${pathname}`, query: new URLSearchParams(search) };
}
