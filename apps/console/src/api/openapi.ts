import type { HttpMethod, OperationRequestBodyContent, PathsWithMethod, RequiredKeysOf, SuccessResponseJSON } from 'openapi-typescript-helpers';
import type { Service } from '../auth/credentials';
import type { paths as DocstorePaths } from './generated/docstore';
import type { paths as GatewayPaths } from './generated/gateway';
import type { paths as IngestPushPaths } from './generated/ingest-push';

/**
 * Each console service's operations, as the services' OpenAPI documents declare them (src/api/generated, made by
 * `npm run api:types`). The ingest-push document serves two console services, each with its own credential.
 */
export interface ServicePaths {
  docstore: DocstorePaths;
  gateway: GatewayPaths;
  ingestion: Pick<IngestPushPaths, Extract<keyof IngestPushPaths, `/DataInserterSales/${string}`>>;
  push: Pick<IngestPushPaths, Extract<keyof IngestPushPaths, `/api/pushm/${string}`>>;
}

export type Method = Extract<HttpMethod, 'get' | 'post' | 'put' | 'delete'>;

/** The path templates of `service` that take `method`. */
export type PathOf<S extends Service, M extends Method> = PathsWithMethod<ServicePaths[S], M>;

type Operation<S extends Service, M extends Method, P extends PathOf<S, M>> = ServicePaths[S][P][M & keyof ServicePaths[S][P]];

/** The success answer's JSON; `unknown` where the operation documents none. */
export type Answer<S extends Service, M extends Method, P extends PathOf<S, M>> =
  SuccessResponseJSON<Operation<S, M, P> & Record<string | number, unknown>> extends infer A ? ([A] extends [undefined] ? unknown : A) : never;

/** Path and query parameters; the credential headers are the client's (see authHeaders), never the caller's. */
export type Params<S extends Service, M extends Method, P extends PathOf<S, M>> = Omit<
  Operation<S, M, P> extends { parameters: infer Q } ? Q : never,
  'header' | 'cookie'
>;

export type Body<S extends Service, M extends Method, P extends PathOf<S, M>> = OperationRequestBodyContent<Operation<S, M, P>>;

type Parts<S extends Service, M extends Method, P extends PathOf<S, M>> = (RequiredKeysOf<Params<S, M, P>> extends never
  ? { params?: Params<S, M, P> }
  : { params: Params<S, M, P> }) &
  ([Body<S, M, P>] extends [never | undefined] ? { body?: undefined } : { body: Body<S, M, P> });

/** What a call adds to its path template: its parameters, its body, and extra headers (If-Match). */
export type Init<S extends Service, M extends Method, P extends PathOf<S, M>> = Parts<S, M, P> & { headers?: Record<string, string> };

/** The GET paths of `service` whose answer is a page of rows (`data: [...]`). */
export type ListPath<S extends Service> = {
  [P in PathOf<S, 'get'>]: Answer<S, 'get', P> extends { data: ReadonlyArray<unknown> } ? P : never;
}[PathOf<S, 'get'>];

/** A row of a list answer. */
export type Row<S extends Service, P extends ListPath<S>> = Answer<S, 'get', P> extends { data: ReadonlyArray<infer R> } ? R : never;
