import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';

export interface MediaRecord {
  id: string;
  accountId: string;
  phoneRef: string;
  kind: string;
  mimeType: string;
  size: number;
  sha256: Buffer;
}

@Injectable()
export class MediaRepository {
  constructor(private readonly sql: Sql) {}

  /** The mime type of a media of the account, or null (another account's, or none). */
  async mimeType(accountId: string, id: string): Promise<string | null> {
    const row = await this.sql.one<{ mime_type: string }>(`SELECT mime_type FROM gateway.media WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return row?.mime_type ?? null;
  }

  /**
   * Records an upload under the network's id. An id the account already holds (the network
   * answered with it again) now describes this upload; false when the id is another account's.
   */
  async record(media: MediaRecord): Promise<boolean> {
    const row = await this.sql.one<{ id: string }>(
      `INSERT INTO gateway.media (id, account_id, phone_ref, kind, mime_type, size, sha256) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (id) DO UPDATE SET phone_ref = EXCLUDED.phone_ref, kind = EXCLUDED.kind, mime_type = EXCLUDED.mime_type, size = EXCLUDED.size, sha256 = EXCLUDED.sha256
        WHERE gateway.media.account_id = EXCLUDED.account_id
       RETURNING id`,
      [media.id, media.accountId, media.phoneRef, media.kind, media.mimeType, media.size, media.sha256],
    );
    return row !== null;
  }
}
