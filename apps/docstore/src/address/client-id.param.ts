import { Param } from '@nestjs/common';

/**
 * A client id is a UUID, so its letter case carries nothing: every route, the auth guard and the CLI store and
 * compare it as this gives it (lower case), so that a webhook or token made under `/client/ABC…` belongs to client `abc…`.
 */
export function clientIdOf(raw: string): string {
  return raw.toLowerCase();
}

/** The `:client` path parameter as `clientIdOf` gives it. */
export const ClientIdParam = (): ParameterDecorator => Param('client', { transform: clientIdOf });
