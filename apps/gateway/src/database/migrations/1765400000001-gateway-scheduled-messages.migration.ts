import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Scheduled sends: the messages to send at `send_at`, the outbox of the scheduled-send lane (due, queued and sending indexes). */
export class GatewayScheduledMessages1765400000001 implements MigrationInterface {
  name = 'GatewayScheduledMessages1765400000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "gateway"."scheduled_messages" ("id" character varying(64) NOT NULL, "phone_ref" uuid NOT NULL, "to" character varying(32) NOT NULL, "wa_id" character varying(32) NOT NULL, "type" character varying(16) NOT NULL, "request" jsonb NOT NULL, "send_at" TIMESTAMP WITH TIME ZONE NOT NULL, "state" character varying(16) NOT NULL, "message_id" character varying(255), "error" jsonb, "attempts" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE, "queued_at" TIMESTAMP WITH TIME ZONE, "claimed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_7cd15ea89ad2fc7896baa748416" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "scheduled_messages_sending_idx" ON "gateway"."scheduled_messages" ("claimed_at") WHERE state = 'sending'`);
    await q.query(`CREATE INDEX "scheduled_messages_queued_idx" ON "gateway"."scheduled_messages" ("phone_ref", "queued_at") WHERE queued_at IS NOT NULL`);
    await q.query(
      `CREATE INDEX "scheduled_messages_due_idx" ON "gateway"."scheduled_messages" ("next_attempt_at") WHERE queued_at IS NULL AND next_attempt_at IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "gateway"."scheduled_messages"`);
  }
}
