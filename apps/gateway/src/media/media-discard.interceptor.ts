import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { catchError, from, mergeMap, throwError, type Observable } from 'rxjs';
import type { GatewayPrincipal } from '../accounts/gateway-principal';
import { MediaService, type ReceivedMedia } from './media.service';

/**
 * Runs after MediaFileInterceptor: the file is already stored with the provider when the form's fields are
 * validated and recorded, so any refusal from then on (a bad `messaging_product`, an id another account holds)
 * lets go of the stored file before the error answers.
 */
@Injectable()
export class MediaDiscardInterceptor implements NestInterceptor {
  constructor(private readonly media: MediaService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request & { file?: ReceivedMedia }>();
    return next.handle().pipe(
      catchError((error: unknown) => {
        const stored = req.file?.id;
        if (!stored) return throwError(() => error);
        const phone = (req.principal as GatewayPrincipal).phone;
        return from(this.media.discard(phone, stored)).pipe(mergeMap(() => throwError(() => error)));
      }),
    );
  }
}
