import { useMutation, useQuery, useQueryClient, type UseQueryOptions } from '@tanstack/react-query';
import { useSession } from '../auth/session';
import type { Service } from '../auth/credentials';
import { call } from './client';
import type { Answer, Init, Method, PathOf } from './openapi';

/**
 * A GET through TanStack Query, keyed by service, path template and parameters; the answer's type is the
 * operation's success schema. `options.enabled: false` waits (a page without its id, say).
 */
export function useApiQuery<S extends Service, P extends PathOf<S, 'get'>>(
  service: S,
  path: P,
  init: Init<S, 'get', P>,
  options: Partial<UseQueryOptions<Answer<S, 'get', P>>> = {},
) {
  const { credentials } = useSession();
  return useQuery<Answer<S, 'get', P>>({
    queryKey: [service, path, init],
    queryFn: () => call<S, 'get', P>(service, credentials, 'get', path, init),
    ...options,
  });
}

/** A write built from the mutation's variables; on success the service's cached answers are refetched. */
export function useApiMutation<S extends Service, M extends Exclude<Method, 'get'>, P extends PathOf<S, M>, V = void>(
  service: S,
  method: M,
  path: P,
  request: (vars: V) => Init<S, M, P>,
) {
  const { credentials } = useSession();
  const queryClient = useQueryClient();
  return useMutation<Answer<S, M, P>, Error, V>({
    mutationFn: (vars) => call<S, M, P>(service, credentials, method, path, request(vars)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [service] }),
  });
}
