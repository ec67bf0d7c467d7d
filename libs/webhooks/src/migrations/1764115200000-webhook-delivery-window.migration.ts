import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Each webhook's delivery window: how many deliveries may be queued or in flight to it now (DELIVERY_WINDOW in webhook-attempts.repository.ts). */
export class WebhookDeliveryWindow1764115200000 implements MigrationInterface {
  name = 'WebhookDeliveryWindow1764115200000';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."webhooks" ADD COLUMN "delivery_window" integer NOT NULL DEFAULT 128`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."webhooks" DROP COLUMN "delivery_window"`);
  }
}
