/**
 * Who is calling, as every credential store reports it. Stores return subtypes with
 * what their app needs (the docstore adds scopes).
 */
export interface Principal {
  /** The credential's id: the rate-limit subject, so unique across the stores of one app. */
  credentialId: string;
  /** The credential's name, where it has one (the audit log records it). */
  credentialName?: string | null;
  /** Who the credential acts for (a client, tenant or account id). */
  ownerId: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}
