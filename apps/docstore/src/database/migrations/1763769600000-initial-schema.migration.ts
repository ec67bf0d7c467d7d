import type { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763769600000 implements MigrationInterface {
  name = 'InitialSchema1763769600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "docstore"."documents" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "client_id" uuid NOT NULL, "environment" character varying(255) NOT NULL, "context" character varying(255) NOT NULL, "type" character varying(255) NOT NULL, "key" character varying(255) NOT NULL, "data" jsonb NOT NULL, "version" integer NOT NULL DEFAULT '1', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE, "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_ac51aa5181ee2036f5ca482857c" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "documents_scope_created_idx" ON "docstore"."documents" ("client_id", "environment", "context", "type", "created_at", "id")`);
    await q.query(`CREATE UNIQUE INDEX "documents_scope_key_uq" ON "docstore"."documents" ("client_id", "environment", "context", "type", "key")`);
    // Containment filters (data @> '{"a":{"b":1}}') use this index.
    await q.query(`CREATE INDEX "documents_data_gin" ON "docstore"."documents" USING GIN ("data" jsonb_path_ops)`);
    await q.query(
      `CREATE TABLE "docstore"."document_history" ("id" BIGSERIAL NOT NULL, "document_id" uuid NOT NULL, "client_id" uuid NOT NULL, "environment" character varying(255) NOT NULL, "context" character varying(255) NOT NULL, "type" character varying(255) NOT NULL, "key" character varying(255) NOT NULL, "data" jsonb NOT NULL, "version" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_0783dd4cd636039459ee63c9a8b" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "document_history_version_uq" ON "docstore"."document_history" ("document_id", "version")`);
    await q.query(
      `CREATE TABLE "docstore"."schemas" ("id" SERIAL NOT NULL, "client_id" uuid NOT NULL, "environment" character varying(255) NOT NULL, "context" character varying(255) NOT NULL, "type" character varying(255) NOT NULL, "schema" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_15ef0261cc6714f7bacfed7acfb" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "schemas_scope_uq" ON "docstore"."schemas" ("client_id", "environment", "context", "type")`);
    await q.query(
      `CREATE TABLE "docstore"."tokens" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "client_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "secret_hash" bytea NOT NULL, "scopes" jsonb NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'active', "last_used_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_3001e89ada36263dabf1fb6210a" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "tokens_client_created_idx" ON "docstore"."tokens" ("client_id", "created_at")`);
    await q.query(
      `ALTER TABLE "docstore"."document_history" ADD CONSTRAINT "FK_d4a95b0fc785a9c6e9843240d5e" FOREIGN KEY ("document_id") REFERENCES "docstore"."documents"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "docstore"."tokens"`);
    await q.query(`DROP TABLE "docstore"."schemas"`);
    await q.query(`DROP TABLE "docstore"."document_history"`);
    await q.query(`DROP TABLE "docstore"."documents"`);
  }
}
