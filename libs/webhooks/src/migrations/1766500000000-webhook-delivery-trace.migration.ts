import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context of the request that wrote a delivery (`traceparent[;tracestate]`), so its attempts
 * continue that request's trace. A nullable column without a default: no table rewrite.
 */
export class WebhookDeliveryTrace1766500000000 implements MigrationInterface {
  name = 'WebhookDeliveryTrace1766500000000';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."webhook_deliveries" ADD COLUMN "trace_context" character varying(600)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."webhook_deliveries" DROP COLUMN "trace_context"`);
  }
}
