import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a running ingestion shares with other processes: its stage, a heartbeat (a stale one
 * means its process stopped), a cancel request, and how many row errors went unstored.
 */
export class IngestionHeartbeat1764500000000 implements MigrationInterface {
  name = 'IngestionHeartbeat1764500000000';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(
      `ALTER TABLE ${s}."sales_ingestions"
         ADD "errors_not_stored" integer NOT NULL DEFAULT '0',
         ADD "stage" character varying(16),
         ADD "heartbeat_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
         ADD "cancel_requested" boolean NOT NULL DEFAULT false`,
    );
    await q.query(`CREATE INDEX "sales_ingestions_running_heartbeat_idx" ON ${s}."sales_ingestions" ("heartbeat_at") WHERE "status" = 'running'`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP INDEX ${s}."sales_ingestions_running_heartbeat_idx"`);
    await q.query(
      `ALTER TABLE ${s}."sales_ingestions" DROP COLUMN "cancel_requested", DROP COLUMN "heartbeat_at", DROP COLUMN "stage", DROP COLUMN "errors_not_stored"`,
    );
  }
}
