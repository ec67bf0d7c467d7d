import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { PhoneContext } from '../network/chat-provider';
import type { GatewayPrincipal } from './gateway-principal';

/** The business phone of the request's API key. */
export const CurrentPhone = createParamDecorator((_: unknown, ctx: ExecutionContext): PhoneContext => {
  const principal = ctx.switchToHttp().getRequest<Request>().principal as GatewayPrincipal | undefined;
  if (!principal) throw new Error('CurrentPhone used on a public route');
  return principal.phone;
});
