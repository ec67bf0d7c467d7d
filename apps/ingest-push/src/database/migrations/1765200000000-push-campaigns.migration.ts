import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Push for campaigns: a batch's throttle and expected finish, when a push was opened (and the index
 * of opens per hour), and each account's frequency cap and quiet hours.
 */
export class PushCampaigns1765200000000 implements MigrationInterface {
  name = 'PushCampaigns1765200000000';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."push_batches" ADD "throttle_per_minute" integer, ADD "expected_finish_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE ${s}."push_items" ADD "opened_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`CREATE INDEX "push_items_opened_idx" ON ${s}."push_items" ("account_id", "opened_at") WHERE opened_at IS NOT NULL`);
    await q.query(
      `CREATE TABLE ${s}."push_settings" ("account_id" uuid NOT NULL, "cap_max_pushes" integer, "cap_window_hours" integer,
        "quiet_start" character varying(5), "quiet_end" character varying(5), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "push_settings_pkey" PRIMARY KEY ("account_id"))`,
    );
    await q.query(
      `ALTER TABLE ${s}."push_settings" ADD CONSTRAINT "push_settings_account_fk" FOREIGN KEY ("account_id") REFERENCES ${s}."accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP TABLE ${s}."push_settings"`);
    await q.query(`DROP INDEX ${s}."push_items_opened_idx"`);
    await q.query(`ALTER TABLE ${s}."push_items" DROP COLUMN "opened_at"`);
    await q.query(`ALTER TABLE ${s}."push_batches" DROP COLUMN "expected_finish_at", DROP COLUMN "throttle_per_minute"`);
  }
}
