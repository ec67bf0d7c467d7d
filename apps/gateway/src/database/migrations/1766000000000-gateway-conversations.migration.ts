import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Conversations: each contact's conversation per phone, customers' messages, opt-outs and each account's keywords. */
export class GatewayConversations1766000000000 implements MigrationInterface {
  name = 'GatewayConversations1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "gateway"."conversations" ("phone_ref" uuid NOT NULL, "wa_id" character varying(32) NOT NULL, "profile_name" character varying(256), "last_inbound_at" TIMESTAMP WITH TIME ZONE, "last_message_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_0acac03e01a8a115208c361a226" PRIMARY KEY ("phone_ref", "wa_id"))`,
    );
    await q.query(`CREATE INDEX "conversations_phone_last_idx" ON "gateway"."conversations" ("phone_ref", "last_message_at", "wa_id")`);
    await q.query(
      `CREATE TABLE "gateway"."inbound_messages" ("id" character varying(255) NOT NULL, "phone_ref" uuid NOT NULL, "wa_id" character varying(32) NOT NULL, "type" character varying(32) NOT NULL, "payload" jsonb NOT NULL, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL, "read_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_4f21d40ad47ab9702cb1ee64590" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "inbound_messages_thread_idx" ON "gateway"."inbound_messages" ("phone_ref", "wa_id", "received_at")`);
    await q.query(
      `CREATE TABLE "gateway"."opt_out_keywords" ("account_id" uuid NOT NULL, "opt_out" text array NOT NULL, "opt_in" text array NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5ae0c45da889bdd3ba761bbf603" PRIMARY KEY ("account_id"))`,
    );
    await q.query(
      `CREATE TABLE "gateway"."opt_outs" ("account_id" uuid NOT NULL, "wa_id" character varying(32) NOT NULL, "source" character varying(16) NOT NULL, "keyword" character varying(64), "opted_out_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_00e268f3eeb0fe4c59d21fdc3d1" PRIMARY KEY ("account_id", "wa_id"))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "gateway"."opt_outs"`);
    await q.query(`DROP TABLE "gateway"."opt_out_keywords"`);
    await q.query(`DROP TABLE "gateway"."inbound_messages"`);
    await q.query(`DROP TABLE "gateway"."conversations"`);
  }
}
