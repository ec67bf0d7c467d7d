import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context of the request that scheduled a message (`traceparent[;tracestate]`), so its send
 * continues that request's trace. A nullable column without a default: no table rewrite.
 */
export class GatewayScheduledTrace1766500000020 implements MigrationInterface {
  name = 'GatewayScheduledTrace1766500000020';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."scheduled_messages" ADD COLUMN "trace_context" character varying(600)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."scheduled_messages" DROP COLUMN "trace_context"`);
  }
}
