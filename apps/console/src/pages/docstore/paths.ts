/** Docstore paths for the signed-in client. */
export interface Collection {
  environment: string;
  context: string;
  type: string;
}

const seg = encodeURIComponent;

export const clientPath = (client: string) => `/api/v1/client/${seg(client)}`;
export const collectionPath = (client: string, c: Collection) =>
  `${clientPath(client)}/${seg(c.environment)}/context/${seg(c.context)}/type/${seg(c.type)}`;
export const documentPath = (client: string, c: Collection, key: string) => `${collectionPath(client, c)}/${seg(key)}`;

/** The console's own page addresses for a collection and a document. */
export const documentsPage = (c: Collection) => `/docstore/documents?${new URLSearchParams({ environment: c.environment, context: c.context, type: c.type })}`;
export const documentPage = (c: Collection, key: string) =>
  `/docstore/document?${new URLSearchParams({ environment: c.environment, context: c.context, type: c.type, key })}`;

export function collectionFrom(params: URLSearchParams): Collection | null {
  const [environment, context, type] = ['environment', 'context', 'type'].map((k) => params.get(k) ?? '');
  return environment && context && type ? { environment, context, type } : null;
}

export interface DocumentView extends Collection {
  id: string;
  key: string;
  data: Record<string, unknown>;
  version: number;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  deleted_at: string | null;
}
