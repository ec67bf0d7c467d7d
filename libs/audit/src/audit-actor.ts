import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '@app/auth';
import type { Request } from 'express';
import type { AuditActor } from './audit-recorder';

/** The authenticated caller of `req`, with `req.ip` (the proxies' X-Forwarded-For read as `trust proxy` allows). */
export function actorOf(req: Request): AuditActor {
  const principal: Principal | undefined = req.principal;
  return { credentialId: principal?.credentialId ?? 'anonymous', credentialName: principal?.credentialName ?? null, ip: req.ip ?? null };
}

/** A handler parameter: the request's AuditActor. */
export const Actor = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuditActor => actorOf(ctx.switchToHttp().getRequest<Request>()));
