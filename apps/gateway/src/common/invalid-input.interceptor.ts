import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ValidationFailedException } from '@app/errors';
import { catchError, type Observable } from 'rxjs';
import { InvalidParameterException } from '../errors/network-error.exception';

/**
 * The global ValidationPipe refuses a DTO with the shared 422; the network answers such a
 * request 400 `(#100) Invalid parameter` naming the field. Pipes run inside interceptors,
 * so this sees the pipe's refusal of every body and query of an `api/` route.
 */
@Injectable()
export class InvalidInputInterceptor implements NestInterceptor {
  intercept(_: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (!(error instanceof ValidationFailedException)) throw error;
        const fields = Object.entries((error.extras as { errors?: Record<string, string[]> }).errors ?? {});
        if (fields.length === 0) throw error;
        const [[field, messages], ...others] = fields;
        throw new InvalidParameterException(field, [messages.join(' '), ...others.map(([name, more]) => `${name}: ${more.join(' ')}`)].join('; '));
      }),
    );
  }
}
