import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { InvalidParameterException } from '../errors/network-error.exception';

/**
 * Every query parameter holds one value: a repeated one (`phone_id=a&phone_id=b`) or an
 * array-style name (`phone_id[]=a`, `phone_id[x]=a`) is a 400 naming it, never read as if absent.
 */
@Injectable()
export class SingleQueryValuesGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const query = context.switchToHttp().getRequest<Request>().query as Record<string, unknown>;
    for (const [name, value] of Object.entries(query)) {
      if (name.includes('[')) throw new InvalidParameterException(name.slice(0, 64), 'query parameters take one value; array-style names are not accepted');
      if (typeof value !== 'string') throw new InvalidParameterException(name.slice(0, 64), 'must be given once');
    }
    return true;
  }
}
