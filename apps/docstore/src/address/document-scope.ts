/** The address of a document collection: DOC in the spec. */
export interface DocumentScope {
  clientId: string;
  environment: string;
  context: string;
  type: string;
}
