import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Push: accounts, their tokens, batches, items (the outbox and the record) and invalid devices. */
export class PushTables1763900000001 implements MigrationInterface {
  name = 'PushTables1763900000001';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(
      `CREATE TABLE ${s}."push_accounts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(255) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "push_accounts_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "push_accounts_name_uq" ON ${s}."push_accounts" ("name")`);
    await q.query(
      `CREATE TABLE ${s}."push_tokens" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "account_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "secret_hash" bytea NOT NULL, "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "push_tokens_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "push_tokens_account_idx" ON ${s}."push_tokens" ("account_id")`);
    await q.query(
      `CREATE TABLE ${s}."push_batches" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "account_id" uuid NOT NULL, "idempotency_key" character varying(255), "request_hash" bytea, "accepted" integer NOT NULL, "rejected" integer NOT NULL, "rejections" jsonb NOT NULL DEFAULT '[]', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "cancelled_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "push_batches_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "push_batches_idempotency_uq" ON ${s}."push_batches" ("account_id", "idempotency_key") WHERE idempotency_key IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "push_batches_account_created_idx" ON ${s}."push_batches" ("account_id", "created_at")`);
    await q.query(
      `CREATE TABLE ${s}."push_items" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "batch_id" uuid NOT NULL, "account_id" uuid NOT NULL, "position" integer NOT NULL, "name" character varying(255), "platform" character varying(8) NOT NULL, "device" character varying(1024) NOT NULL, "title" text NOT NULL, "body" text NOT NULL, "url_scheme" character varying(2048), "due_at" TIMESTAMP WITH TIME ZONE NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'scheduled', "attempts" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE, "queued_at" TIMESTAMP WITH TIME ZONE, "sent_at" TIMESTAMP WITH TIME ZONE, "provider_id" character varying(255), "error" character varying(1024), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "push_items_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "push_items_batch_position_uq" ON ${s}."push_items" ("batch_id", "position")`);
    await q.query(
      `CREATE INDEX "push_items_due_idx" ON ${s}."push_items" ("account_id", "platform", "next_attempt_at") WHERE queued_at IS NULL AND next_attempt_at IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "push_items_queued_idx" ON ${s}."push_items" ("account_id", "platform", "queued_at") WHERE queued_at IS NOT NULL`);
    await q.query(
      `CREATE TABLE ${s}."push_invalid_devices" ("account_id" uuid NOT NULL, "platform" character varying(8) NOT NULL, "device" character varying(1024) NOT NULL, "reason" character varying(1024) NOT NULL, "marked_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "push_invalid_devices_pkey" PRIMARY KEY ("account_id", "platform", "device"))`,
    );
    await q.query(
      `ALTER TABLE ${s}."push_tokens" ADD CONSTRAINT "push_tokens_account_fk" FOREIGN KEY ("account_id") REFERENCES ${s}."push_accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE ${s}."push_batches" ADD CONSTRAINT "push_batches_account_fk" FOREIGN KEY ("account_id") REFERENCES ${s}."push_accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE ${s}."push_items" ADD CONSTRAINT "push_items_batch_fk" FOREIGN KEY ("batch_id") REFERENCES ${s}."push_batches"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE ${s}."push_invalid_devices" ADD CONSTRAINT "push_invalid_devices_account_fk" FOREIGN KEY ("account_id") REFERENCES ${s}."push_accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    for (const table of ['push_invalid_devices', 'push_items', 'push_batches', 'push_tokens', 'push_accounts']) await q.query(`DROP TABLE ${s}."${table}"`);
  }
}
