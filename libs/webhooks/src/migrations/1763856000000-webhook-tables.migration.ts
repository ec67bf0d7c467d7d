import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The engine's two tables, created in the schema of whichever app runs the migration. */
export class WebhookTables1763856000000 implements MigrationInterface {
  name = 'WebhookTables1763856000000';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(
      `CREATE TABLE ${s}."webhooks" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "client_id" uuid NOT NULL, "url" character varying(2048) NOT NULL, "events" text array NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'active', "secret" character varying(128) NOT NULL, "previous_secret" character varying(128), "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE, "headers" jsonb NOT NULL DEFAULT '{}', "failing_since" TIMESTAMP WITH TIME ZONE, "disabled_reason" character varying(255), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "webhooks_client_created_idx" ON ${s}."webhooks" ("client_id", "created_at")`);
    await q.query(`CREATE UNIQUE INDEX "webhooks_client_url_uq" ON ${s}."webhooks" ("client_id", "url")`);
    await q.query(
      `CREATE TABLE ${s}."webhook_deliveries" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "webhook_id" uuid NOT NULL, "client_id" uuid NOT NULL, "event_id" uuid NOT NULL, "event_type" character varying(64) NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "data" json NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "retry_from" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE DEFAULT now(), "queued_at" TIMESTAMP WITH TIME ZONE, "last_attempt_at" TIMESTAMP WITH TIME ZONE, "response_status" integer, "duration_ms" integer, "error" character varying(1024), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "webhook_deliveries_queued_idx" ON ${s}."webhook_deliveries" ("webhook_id", "queued_at") WHERE queued_at IS NOT NULL`);
    await q.query(
      `CREATE INDEX "webhook_deliveries_due_idx" ON ${s}."webhook_deliveries" ("webhook_id", "next_attempt_at") WHERE queued_at IS NULL AND next_attempt_at IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "webhook_deliveries_webhook_created_idx" ON ${s}."webhook_deliveries" ("webhook_id", "created_at")`);
    await q.query(
      `ALTER TABLE ${s}."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_fk" FOREIGN KEY ("webhook_id") REFERENCES ${s}."webhooks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP TABLE ${s}."webhook_deliveries"`);
    await q.query(`DROP TABLE ${s}."webhooks"`);
  }
}
