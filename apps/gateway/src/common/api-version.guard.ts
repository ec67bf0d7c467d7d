import { applyDecorators, Controller, Injectable, UseFilters, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ApiHeader, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiErrors } from '@app/errors';
import { InvalidParameterException } from '../errors/network-error.exception';
import { InvalidInputFilter } from './invalid-input.filter';
import { SingleQueryValuesGuard } from './single-query-values.guard';

/** The interface versions a client may ask for; they behave the same (see the README's Gateway section). */
export const API_VERSIONS = ['4.0', '5.0', '6.0'] as const;

/** Every `api/` request names one of API_VERSIONS in its `version` header; checked after authentication. */
@Injectable()
export class ApiVersionGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const version = context.switchToHttp().getRequest<Request>().headers.version;
    if (typeof version !== 'string' || !(API_VERSIONS as readonly string[]).includes(version.trim())) {
      throw new InvalidParameterException('version', `header must be one of ${API_VERSIONS.join(', ')}`);
    }
    return true;
  }
}

/** A controller of the spec's `api/<Resource>` paths: versioned, one value per query parameter, DTO refusals in the network's 400, documented with its headers and shared refusals. */
export function GatewayApi(resource: string): ClassDecorator {
  return applyDecorators(
    Controller(`api/${resource}`),
    UseGuards(SingleQueryValuesGuard, ApiVersionGuard),
    UseFilters(InvalidInputFilter),
    ApiTags(resource),
    ApiSecurity('apikey'),
    ApiHeader({ name: 'version', required: true, enum: [...API_VERSIONS] }),
    ApiErrors(400, 401, 429),
  );
}
