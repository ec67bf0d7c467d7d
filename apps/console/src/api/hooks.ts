import { useMutation, useQuery, useQueryClient, type UseQueryOptions } from '@tanstack/react-query';
import { useSession } from '../auth/session';
import type { Service } from '../auth/credentials';
import { api, type RequestOptions } from './client';

/** A GET through TanStack Query, keyed by service and path. */
export function useApiQuery<T>(service: Service, path: string | null, options: Partial<UseQueryOptions<T>> = {}) {
  const { credentials } = useSession();
  return useQuery<T>({
    queryKey: [service, path],
    queryFn: () => api<T>(service, credentials, path!),
    enabled: path !== null,
    ...options,
  });
}

/** A write; on success the service's cached lists are refetched. */
export function useApiMutation<T, V>(service: Service, request: (vars: V) => { path: string } & RequestOptions) {
  const { credentials } = useSession();
  const queryClient = useQueryClient();
  return useMutation<T, Error, V>({
    mutationFn: (vars) => {
      const { path, ...options } = request(vars);
      return api<T>(service, credentials, path, options);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [service] }),
  });
}
