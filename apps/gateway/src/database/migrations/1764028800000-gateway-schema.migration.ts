import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The gateway's schema: accounts, phones, hashed API keys, messages with their status history, idempotency keys, media, templates, profiles, inbound dedup. */
export class GatewaySchema1764028800000 implements MigrationInterface {
  name = 'GatewaySchema1764028800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "gateway"."accounts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(255) NOT NULL, "waba_id" character varying(64), "access_token" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5a7a02c20412299d198e097a8fe" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "accounts_waba_id_uq" ON "gateway"."accounts" ("waba_id") WHERE waba_id IS NOT NULL`);
    await q.query(
      `CREATE TABLE "gateway"."phones" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "account_id" uuid NOT NULL, "phone" character varying(32) NOT NULL, "phone_id" character varying(64) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_30d7fc09a458d7a4d9471bda554" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "phones_account_idx" ON "gateway"."phones" ("account_id")`);
    await q.query(`CREATE UNIQUE INDEX "phones_phone_id_uq" ON "gateway"."phones" ("phone_id")`);
    await q.query(
      `CREATE TABLE "gateway"."api_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "phone_ref" uuid NOT NULL, "name" character varying(255) NOT NULL, "key_hash" bytea NOT NULL, "last_used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE TABLE "gateway"."media" ("id" character varying(128) NOT NULL, "account_id" uuid NOT NULL, "phone_ref" uuid NOT NULL, "kind" character varying(16) NOT NULL, "mime_type" character varying(128) NOT NULL, "size" bigint NOT NULL, "sha256" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f4e0fcac36e050de337b670d8bd" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "media_account_idx" ON "gateway"."media" ("account_id")`);
    await q.query(
      `CREATE TABLE "gateway"."idempotency_keys" ("phone_ref" uuid NOT NULL, "key" character varying(255) NOT NULL, "request_hash" bytea NOT NULL, "response" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a108723c1f4bc315904e2885bae" PRIMARY KEY ("phone_ref", "key"))`,
    );
    await q.query(`CREATE INDEX "idempotency_keys_created_idx" ON "gateway"."idempotency_keys" ("created_at")`);
    await q.query(
      `CREATE TABLE "gateway"."message_statuses" ("id" BIGSERIAL NOT NULL, "message_id" character varying(255) NOT NULL, "status" character varying(16) NOT NULL, "errors" jsonb, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_588875cf01317aa576e28039eb8" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "message_statuses_uq" ON "gateway"."message_statuses" ("message_id", "status")`);
    await q.query(
      `CREATE TABLE "gateway"."messages" ("id" character varying(255) NOT NULL, "phone_ref" uuid NOT NULL, "to" character varying(32) NOT NULL, "wa_id" character varying(32) NOT NULL, "type" character varying(16) NOT NULL, "status" character varying(16) NOT NULL, "payload" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_18325f38ae6de43878487eff986" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "messages_phone_created_idx" ON "gateway"."messages" ("phone_ref", "created_at")`);
    await q.query(
      `CREATE TABLE "gateway"."inbound_events" ("key" character varying(300) NOT NULL, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_42fc3f23d095d8b711933357f8e" PRIMARY KEY ("key"))`,
    );
    await q.query(
      `CREATE TABLE "gateway"."profiles" ("phone_ref" uuid NOT NULL, "fields" jsonb NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1f0efdf705148904d96f37ba096" PRIMARY KEY ("phone_ref"))`,
    );
    await q.query(
      `CREATE TABLE "gateway"."templates" ("id" character varying(64) NOT NULL, "account_id" uuid NOT NULL, "name" character varying(512) NOT NULL, "language" character varying(16) NOT NULL, "category" character varying(16) NOT NULL, "status" character varying(16) NOT NULL, "rejected_reason" character varying(64), "components" jsonb NOT NULL, "allow_category_change" boolean NOT NULL DEFAULT false, "message_send_ttl_seconds" integer, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_515948649ce0bbbe391de702ae5" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "templates_account_name_language_uq" ON "gateway"."templates" ("account_id", "name", "language")`);
    await q.query(
      `ALTER TABLE "gateway"."phones" ADD CONSTRAINT "FK_063e3e8589f2bf6ff378b73ab4b" FOREIGN KEY ("account_id") REFERENCES "gateway"."accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "gateway"."api_keys" ADD CONSTRAINT "FK_3264103d024c66f716f50b407a7" FOREIGN KEY ("phone_ref") REFERENCES "gateway"."phones"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "gateway"."templates"`);
    await q.query(`DROP TABLE "gateway"."profiles"`);
    await q.query(`DROP TABLE "gateway"."inbound_events"`);
    await q.query(`DROP TABLE "gateway"."messages"`);
    await q.query(`DROP TABLE "gateway"."message_statuses"`);
    await q.query(`DROP TABLE "gateway"."idempotency_keys"`);
    await q.query(`DROP TABLE "gateway"."media"`);
    await q.query(`DROP TABLE "gateway"."api_keys"`);
    await q.query(`DROP TABLE "gateway"."phones"`);
    await q.query(`DROP TABLE "gateway"."accounts"`);
  }
}
