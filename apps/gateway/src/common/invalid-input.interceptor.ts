import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ValidationFailedException } from '@app/errors';
import { catchError, type Observable } from 'rxjs';
import { InvalidParameterException } from '../errors/network-error.exception';
import { refusedPart } from './rule.decorator';

/** class-validator's words for a field no DTO declares (forbidNonWhitelisted). */
const UNKNOWN_FIELD = /^property .* should not exist$/;

/**
 * The global ValidationPipe refuses a DTO with the shared 422; the network answers 400
 * `(#100) Invalid parameter` naming one field, the first refused (in the DTO's order), with
 * its rule. Pipes run inside interceptors, so this sees the pipe's refusal of every body and query.
 */
@Injectable()
export class InvalidInputInterceptor implements NestInterceptor {
  intercept(_: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (!(error instanceof ValidationFailedException)) throw error;
        const [first] = Object.entries((error.extras as { errors?: Record<string, string[]> }).errors ?? {});
        if (!first) throw error;
        const [field, [refusal = '']] = first;
        if (UNKNOWN_FIELD.test(refusal)) throw new InvalidParameterException(field, 'is not a known parameter');
        const part = refusedPart(refusal);
        throw part ? new InvalidParameterException(`${field}${part[0]}`, part[1]) : new InvalidParameterException(field, refusal);
      }),
    );
  }
}
