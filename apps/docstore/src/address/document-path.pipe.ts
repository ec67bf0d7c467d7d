import { Injectable, type PipeTransform } from '@nestjs/common';
import { ValidationFailedException, type FieldErrors } from '@app/errors';
import { clientIdOf } from './client-id.param';
import type { DocumentScope } from './document-scope';

/** Path segments (and bulk keys): 1 to PATH_SEGMENT_MAX_LENGTH characters, no slash and no control characters. */
export const PATH_SEGMENT_MAX_LENGTH = 255;
export const PATH_SEGMENT = new RegExp(`^[^/\\u0000-\\u001f\\u007f]{1,${PATH_SEGMENT_MAX_LENGTH}}$`);
export const PATH_SEGMENT_MESSAGE = `$property must be 1 to ${PATH_SEGMENT_MAX_LENGTH} characters without "/" or control characters.`;
const HISTORY_ID = /^[1-9]\d{0,17}$/;
const SEGMENTS = ['environment', 'context', 'type', 'key'] as const;

/** Where a request points: the collection (DOC), and the key and history entry when the route has them. */
export interface DocumentAddress {
  scope: DocumentScope;
  key: string;
  historyId: string;
}

/**
 * Validates the path of every DOC route with plain checks (it runs on every request, so
 * no class-transformer round trip). The client id itself is checked by the auth guard.
 */
@Injectable()
export class DocumentPathPipe implements PipeTransform<Record<string, string>, DocumentAddress> {
  transform(params: Record<string, string>): DocumentAddress {
    let errors: FieldErrors | undefined;
    for (const name of SEGMENTS) {
      const value = params[name];
      if (value !== undefined && !PATH_SEGMENT.test(value)) (errors ??= {})[name] = [PATH_SEGMENT_MESSAGE.replace('$property', name)];
    }
    if (params.history_id !== undefined && !HISTORY_ID.test(params.history_id)) {
      (errors ??= {}).history_id = ['history_id must be a positive integer.'];
    }
    if (errors) throw new ValidationFailedException(errors);
    return {
      scope: { clientId: clientIdOf(params.client), environment: params.environment, context: params.context, type: params.type },
      key: params.key,
      historyId: params.history_id,
    };
  }
}
