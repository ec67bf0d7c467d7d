import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Sales ingestion: accounts, hashed API keys, the typed sales table with its indexes, ingestions and their row errors. */
export class SalesTables1763900000000 implements MigrationInterface {
  name = 'SalesTables1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "ingest_push"."sales" ("account_id" uuid NOT NULL, "order_id" text NOT NULL, "product_id" text NOT NULL, "order_date" TIMESTAMP WITH TIME ZONE NOT NULL, "order_status" text NOT NULL, "order_total" double precision, "order_total_quantity" integer, "order_total_weight" double precision, "order_discount" double precision, "product_name" text, "product_quantity" integer, "product_price" double precision NOT NULL, "product_brand" text, "product_category" text, "product_subcategory" text, "store_id" text NOT NULL, "store_name" text, "store_city" text, "store_state" text, "shipping_price" double precision, "delivery_city" text, "delivery_state" text, "payment_methods" text, "vendedor_name" text, "client_id" text, "customer_name" text, "customer_cpf_cnpj" text NOT NULL, "customer_city" text, "customer_state" text, "customer_phone" text NOT NULL, "customer_email" text NOT NULL, "customer_birth" TIMESTAMP WITH TIME ZONE, "customer_gender" text, "ingestion_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_139a435aeed01aefe52329d81d6" PRIMARY KEY ("account_id", "order_id", "product_id"))`,
    );
    await q.query(`CREATE INDEX "sales_account_customer_doc_idx" ON "ingest_push"."sales" ("account_id", "customer_cpf_cnpj")`);
    await q.query(`CREATE INDEX "sales_account_store_idx" ON "ingest_push"."sales" ("account_id", "store_id")`);
    await q.query(`CREATE INDEX "sales_account_order_date_idx" ON "ingest_push"."sales" ("account_id", "order_date")`);
    await q.query(
      `CREATE TABLE "ingest_push"."sales_accounts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(255) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c7d6a15dcc5f6c61bdfd353314f" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE TABLE "ingest_push"."sales_api_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "account_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "secret_hash" bytea NOT NULL, "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_3fc19a3ec2a3b62ad5c5bac4753" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "sales_api_keys_account_idx" ON "ingest_push"."sales_api_keys" ("account_id")`);
    await q.query(
      `CREATE TABLE "ingest_push"."sales_ingestions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "account_id" uuid NOT NULL, "api_key_id" uuid NOT NULL, "format" character varying(8) NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'running', "bytes" bigint NOT NULL DEFAULT '0', "received" integer NOT NULL DEFAULT '0', "inserted" integer NOT NULL DEFAULT '0', "updated" integer NOT NULL DEFAULT '0', "rejected" integer NOT NULL DEFAULT '0', "error_count" integer NOT NULL DEFAULT '0', "failure" text, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_086399528bd883fb88f57682b03" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "sales_ingestions_account_started_idx" ON "ingest_push"."sales_ingestions" ("account_id", "started_at")`);
    await q.query(
      `CREATE TABLE "ingest_push"."sales_ingestion_errors" ("id" BIGSERIAL NOT NULL, "ingestion_id" uuid NOT NULL, "line" integer NOT NULL, "record" integer NOT NULL, "field" text NOT NULL, "reason" text NOT NULL, CONSTRAINT "PK_339f8658b0f25ecff16a5dae74e" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "sales_ingestion_errors_ingestion_idx" ON "ingest_push"."sales_ingestion_errors" ("ingestion_id", "record")`);
    await q.query(
      `ALTER TABLE "ingest_push"."sales_api_keys" ADD CONSTRAINT "FK_f88825f87bab0e8d59fa32c038f" FOREIGN KEY ("account_id") REFERENCES "ingest_push"."sales_accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "ingest_push"."sales_ingestions" ADD CONSTRAINT "FK_30c3dfbdda3c13f9687627f67fe" FOREIGN KEY ("account_id") REFERENCES "ingest_push"."sales_accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "ingest_push"."sales_ingestion_errors" ADD CONSTRAINT "FK_64992dd68a9ffab535a50b5f3ca" FOREIGN KEY ("ingestion_id") REFERENCES "ingest_push"."sales_ingestions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "ingest_push"."sales_ingestion_errors"`);
    await q.query(`DROP TABLE "ingest_push"."sales_ingestions"`);
    await q.query(`DROP TABLE "ingest_push"."sales_api_keys"`);
    await q.query(`DROP TABLE "ingest_push"."sales_accounts"`);
    await q.query(`DROP TABLE "ingest_push"."sales"`);
  }
}
