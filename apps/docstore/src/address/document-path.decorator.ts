import { applyDecorators } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';

/** The DOC path's parameters in path order, with values that work together with the write bodies' examples. */
const SCOPE_PARAMETERS = [
  ApiParam({ name: 'client', description: "The client's UUID (the token's client).", schema: { type: 'string', format: 'uuid' } }),
  ApiParam({ name: 'environment', schema: { type: 'string', maxLength: 255, example: 'production' } }),
  ApiParam({ name: 'context', schema: { type: 'string', maxLength: 255, example: 'shop' } }),
  ApiParam({ name: 'type', schema: { type: 'string', maxLength: 255, example: 'product' } }),
];
const KEY = ApiParam({ name: 'key', schema: { type: 'string', maxLength: 255, example: 'sku-1' } });
const HISTORY_ID = ApiParam({
  name: 'history_id',
  description: 'A history entry id, from the history list.',
  schema: { type: 'string', pattern: '^[1-9][0-9]{0,17}$' },
});

/**
 * Declares the parameters of a route under the DOC path (read as one object by
 * DocumentPathPipe, so Nest cannot see their names), and its 422 for a bad segment.
 */
export function ApiDocumentPath(...below: Array<'key' | 'history_id'>): MethodDecorator {
  const extra = below.map((name) => (name === 'key' ? KEY : HISTORY_ID));
  return applyDecorators(...SCOPE_PARAMETERS, ...extra, ApiErrors(422));
}
