import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context of the request that accepted a push (`traceparent[;tracestate]`), so its sends continue
 * that request's trace. A nullable column without a default: no table rewrite.
 */
export class PushItemTrace1766500000010 implements MigrationInterface {
  name = 'PushItemTrace1766500000010';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."push_items" ADD COLUMN "trace_context" character varying(600)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."push_items" DROP COLUMN "trace_context"`);
  }
}
