import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The audit log's table, created in the schema of whichever app runs the migration. */
export class AuditLog1767000000000 implements MigrationInterface {
  name = 'AuditLog1767000000000';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(
      `CREATE TABLE ${s}."audit_log" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" character varying(255) NOT NULL, "actor_id" character varying(255) NOT NULL, "actor_name" character varying(255), "action" character varying(64) NOT NULL, "target_type" character varying(64) NOT NULL, "target_id" character varying(255) NOT NULL, "ip" inet, "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "before" jsonb, "after" jsonb, CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "audit_log_tenant_at_idx" ON ${s}."audit_log" ("tenant_id", "at", "id")`);
    await q.query(`CREATE INDEX "audit_log_at_idx" ON ${s}."audit_log" ("at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "${q.connection.driver.schema}"."audit_log"`);
  }
}
