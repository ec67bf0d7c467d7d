import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The change feed: the log written with every document change, and the sequencer's counter. */
export class Changes1765400000000 implements MigrationInterface {
  name = 'Changes1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "docstore"."changes" ("id" BIGSERIAL NOT NULL, "seq" bigint, "client_id" uuid NOT NULL, "environment" character varying(255) NOT NULL, "context" character varying(255) NOT NULL, "type" character varying(255) NOT NULL, "key" character varying(255) NOT NULL, "document_id" uuid NOT NULL, "version" integer NOT NULL, "kind" character varying(16) NOT NULL, "data" jsonb NOT NULL, "document" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "changes_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "changes_client_seq_idx" ON "docstore"."changes" ("client_id", "seq") WHERE seq IS NOT NULL`);
    await q.query(`CREATE INDEX "changes_pending_idx" ON "docstore"."changes" ("id") WHERE seq IS NULL`);
    await q.query(`CREATE INDEX "changes_created_idx" ON "docstore"."changes" ("created_at")`);
    await q.query(
      `CREATE TABLE "docstore"."change_sequence" ("id" smallint NOT NULL, "last_seq" bigint NOT NULL DEFAULT '0', "pruned_through" bigint NOT NULL DEFAULT '0', CONSTRAINT "change_sequence_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`INSERT INTO "docstore"."change_sequence" ("id") VALUES (1)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "docstore"."change_sequence"`);
    await q.query(`DROP TABLE "docstore"."changes"`);
  }
}
