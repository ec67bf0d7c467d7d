import { Injectable } from '@nestjs/common';
import { isUuid, secretMatches, type Credential, type CredentialVerifier, type Principal } from '@app/auth';
import { Sql } from '@app/database';

/** Checks an `apiKey` header against the stored hashes. */
@Injectable()
export class SalesApiKeyVerifier implements CredentialVerifier {
  constructor(private readonly sql: Sql) {}

  async verify(credential: Credential): Promise<Principal | null> {
    if (!isUuid(credential.id)) return null;
    const row = await this.sql.one<{ account_id: string; secret_hash: Buffer }>(
      'SELECT account_id, secret_hash FROM ingest_push.sales_api_keys WHERE id = $1 AND revoked_at IS NULL',
      [credential.id],
    );
    if (!row || !secretMatches(credential.secret, row.secret_hash)) return null;
    return { tokenId: credential.id, clientId: row.account_id, scopes: ['*'] } as unknown as Principal;
  }
}
