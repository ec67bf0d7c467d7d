import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A client id is stored in lower case everywhere (clientIdOf). Webhooks made under an upper-case `/client/…` path
 * were stored as spelled, so they never matched their client's events: this brings them and their deliveries to lower
 * case. A webhook whose lower-case twin with the same URL already exists is left as it is (the twin is the one that works).
 */
export class WebhookOwnerLowerCase1765137230000 implements MigrationInterface {
  name = 'WebhookOwnerLowerCase1765137230000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE "docstore"."webhooks" w SET "owner" = lower(w."owner")
        WHERE w."owner" <> lower(w."owner")
          AND NOT EXISTS (SELECT 1 FROM "docstore"."webhooks" t WHERE t."owner" = lower(w."owner") AND t."url" = w."url")`,
    );
    await q.query(`UPDATE "docstore"."webhook_deliveries" SET "owner" = lower("owner") WHERE "owner" <> lower("owner")`);
  }

  /** Nothing to undo: lower case is what every other table holds. */
  async down(): Promise<void> {}
}
