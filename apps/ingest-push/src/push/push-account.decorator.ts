import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** The account the request's push token belongs to (the guard has authenticated it). */
export const PushAccount = createParamDecorator((_: unknown, ctx: ExecutionContext): string => ctx.switchToHttp().getRequest<Request>().principal!.ownerId);
