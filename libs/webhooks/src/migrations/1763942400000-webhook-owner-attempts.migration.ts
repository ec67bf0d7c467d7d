import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks keyed by an opaque owner (each service decides what owns a webhook), secrets
 * stored encrypted (longer values; encryption itself needs the key, so the engine
 * encrypts plaintext rows when it starts), and the attempt log: one row per attempt.
 */
export class WebhookOwnerAttempts1763942400000 implements MigrationInterface {
  name = 'WebhookOwnerAttempts1763942400000';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."webhooks" RENAME COLUMN "client_id" TO "owner"`);
    await q.query(`ALTER TABLE ${s}."webhooks" ALTER COLUMN "owner" TYPE character varying(255) USING "owner"::text`);
    await q.query(`ALTER INDEX ${s}."webhooks_client_created_idx" RENAME TO "webhooks_owner_created_idx"`);
    await q.query(`ALTER INDEX ${s}."webhooks_client_url_uq" RENAME TO "webhooks_owner_url_uq"`);
    await q.query(
      `ALTER TABLE ${s}."webhooks" ALTER COLUMN "secret" TYPE character varying(512), ALTER COLUMN "secret" DROP NOT NULL, ALTER COLUMN "previous_secret" TYPE character varying(512)`,
    );
    await q.query(`ALTER TABLE ${s}."webhook_deliveries" RENAME COLUMN "client_id" TO "owner"`);
    await q.query(`ALTER TABLE ${s}."webhook_deliveries" ALTER COLUMN "owner" TYPE character varying(255) USING "owner"::text`);
    await q.query(
      `CREATE TABLE ${s}."webhook_attempts" ("id" BIGSERIAL NOT NULL, "delivery_id" uuid NOT NULL, "attempt" integer NOT NULL, "trigger" character varying(16) NOT NULL, "outcome" character varying(16) NOT NULL, "response_status" integer, "duration_ms" integer, "error" character varying(1024), "response_body" text, "attempted_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "webhook_attempts_delivery_idx" ON ${s}."webhook_attempts" ("delivery_id", "attempt")`);
    await q.query(`CREATE INDEX "webhook_attempts_attempted_idx" ON ${s}."webhook_attempts" ("attempted_at")`);
    await q.query(
      `ALTER TABLE ${s}."webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_fk" FOREIGN KEY ("delivery_id") REFERENCES ${s}."webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Until now only each delivery's last attempt was kept: it becomes that delivery's first log row.
    await q.query(`INSERT INTO ${s}."webhook_attempts" ("delivery_id", "attempt", "trigger", "outcome", "response_status", "duration_ms", "error", "attempted_at")
      SELECT "id", "attempts", 'schedule', CASE WHEN "response_status" BETWEEN 200 AND 299 THEN 'succeeded' ELSE 'failed' END, "response_status", "duration_ms", "error", "last_attempt_at"
      FROM ${s}."webhook_deliveries" WHERE "attempts" > 0 AND "last_attempt_at" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP TABLE ${s}."webhook_attempts"`);
    await q.query(`ALTER TABLE ${s}."webhook_deliveries" ALTER COLUMN "owner" TYPE uuid USING "owner"::uuid`);
    await q.query(`ALTER TABLE ${s}."webhook_deliveries" RENAME COLUMN "owner" TO "client_id"`);
    await q.query(
      `ALTER TABLE ${s}."webhooks" ALTER COLUMN "secret" SET NOT NULL, ALTER COLUMN "secret" TYPE character varying(128), ALTER COLUMN "previous_secret" TYPE character varying(128)`,
    );
    await q.query(`ALTER INDEX ${s}."webhooks_owner_url_uq" RENAME TO "webhooks_client_url_uq"`);
    await q.query(`ALTER INDEX ${s}."webhooks_owner_created_idx" RENAME TO "webhooks_client_created_idx"`);
    await q.query(`ALTER TABLE ${s}."webhooks" ALTER COLUMN "owner" TYPE uuid USING "owner"::uuid`);
    await q.query(`ALTER TABLE ${s}."webhooks" RENAME COLUMN "owner" TO "client_id"`);
  }
}
