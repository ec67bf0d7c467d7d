/** Every scope the document store checks. */
export const DocstoreScope = {
  DocumentCreate: 'document:create',
  DocumentRead: 'document:read',
  DocumentUpdate: 'document:update',
  DocumentDelete: 'document:delete',
  TokenManage: 'token:manage',
  SchemaManage: 'schema:manage',
  WebhookManage: 'webhook:manage',
} as const;

export const DOCSTORE_SCOPES: readonly string[] = Object.values(DocstoreScope);
