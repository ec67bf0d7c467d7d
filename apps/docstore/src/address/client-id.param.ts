import { Param, type PipeTransform } from '@nestjs/common';

/** A client id is a UUID, so its letter case carries nothing: every route stores and compares it in lower case. */
const lowerCase: PipeTransform<string, string> = { transform: (value) => value.toLowerCase() };

/**
 * The `:client` path parameter in lower case, as the auth guard compares it and the DOC routes store it
 * (DocumentPathPipe), so that a webhook or token made under `/client/ABC…` belongs to client `abc…`.
 */
export const ClientIdParam = (): ParameterDecorator => Param('client', lowerCase);
