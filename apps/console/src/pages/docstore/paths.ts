import type { components } from '../../api/generated/docstore';

export type DocumentView = components['schemas']['DocumentDto'];
export type HistoryEntry = components['schemas']['HistoryEntryDto'];

/** A collection as the console's pages name it (the picker's fields, the page addresses). */
export type Collection = Pick<components['schemas']['CollectionDto'], 'environment' | 'context' | 'type'>;

/** The path parameters of a collection's operations for the signed-in client. */
export const collectionParams = (client: string, c: Collection) => ({ client, environment: c.environment, context: c.context, type: c.type });

/** The console's own page addresses for a collection and a document. */
export const documentsPage = (c: Collection) => `/docstore/documents?${new URLSearchParams({ environment: c.environment, context: c.context, type: c.type })}`;
export const documentPage = (c: Collection, key: string) =>
  `/docstore/document?${new URLSearchParams({ environment: c.environment, context: c.context, type: c.type, key })}`;

export function collectionFrom(params: URLSearchParams): Collection | null {
  const [environment, context, type] = ['environment', 'context', 'type'].map((k) => params.get(k) ?? '');
  return environment && context && type ? { environment, context, type } : null;
}
