import { createIndexConcurrently, dropIndex } from '@app/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reading and erasing sales (issue 38): customers are found by the digits of their CPF/CNPJ (the index on the
 * column as written is replaced by one on its digits, built CONCURRENTLY so uploads go on), erasures are recorded
 * without personal data, and an ingestion counts the erased customers it stored again.
 */
export class SalesReads1765400000038 implements MigrationInterface {
  name = 'SalesReads1765400000038';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."sales_ingestions" ADD COLUMN IF NOT EXISTS "erased_customers" integer NOT NULL DEFAULT '0'`);
    await q.query(
      `CREATE TABLE IF NOT EXISTS ${s}."sales_customer_erasures" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "account_id" uuid NOT NULL, "subject" text NOT NULL,
         "key_id" character varying(32) NOT NULL, "api_key_id" uuid NOT NULL, "lines" integer NOT NULL, "errors" integer NOT NULL,
         "erased_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "sales_customer_erasures_pkey" PRIMARY KEY ("id"),
         CONSTRAINT "sales_customer_erasures_account_fk" FOREIGN KEY ("account_id") REFERENCES ${s}."accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS "sales_customer_erasures_account_subject_idx" ON ${s}."sales_customer_erasures" ("account_id", "subject")`);
    await createIndexConcurrently(q, 'sales_account_customer_digits_idx', 'sales', `("account_id", regexp_replace("customer_cpf_cnpj", '[^0-9]', '', 'g'))`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${s}."sales_account_customer_doc_idx"`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`CREATE INDEX IF NOT EXISTS "sales_account_customer_doc_idx" ON ${s}."sales" ("account_id", "customer_cpf_cnpj")`);
    await dropIndex(q, 'sales_account_customer_digits_idx');
    await q.query(`DROP TABLE IF EXISTS ${s}."sales_customer_erasures"`);
    await q.query(`ALTER TABLE ${s}."sales_ingestions" DROP COLUMN IF EXISTS "erased_customers"`);
  }
}
