import { BadRequestException, Injectable, type CallHandler, type ExecutionContext } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { Observable } from 'rxjs';
import { InvalidParameterException } from '../errors/network-error.exception';

/** The multipart form field that carries the file, as the network names it. */
export const MEDIA_FILE_FIELD = 'File';

/** How Nest words multer's LIMIT_UNEXPECTED_FILE: `Unexpected file field - <name>`. */
const UNEXPECTED_FIELD = /^Unexpected (?:file )?field - (.*)$/s;

/**
 * multer reading the one file of an upload, whose "Unexpected file field - file" does not
 * say which field was expected: that answer becomes the network's invalid parameter error,
 * naming `File` (field names are case-sensitive, and `file` is the common mistake).
 */
@Injectable()
export class MediaFileInterceptor extends FileInterceptor(MEDIA_FILE_FIELD) {
  override async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    try {
      return await super.intercept(context, next);
    } catch (error) {
      const field = error instanceof BadRequestException ? UNEXPECTED_FIELD.exec(error.message)?.[1] : undefined;
      if (field === undefined) throw error;
      throw new InvalidParameterException(
        MEDIA_FILE_FIELD,
        `send the file in the multipart form field ${MEDIA_FILE_FIELD} (names are case-sensitive); this request sent a file in ${JSON.stringify(field)}`,
      );
    }
  }
}
