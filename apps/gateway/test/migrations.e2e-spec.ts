import 'reflect-metadata';
import { Sql } from '@app/database';
import { itKeepsEntitiesAndMigrationsInStep } from '@app/testkit';
import { startGateway, type Gateway } from './support/gateway-test';

/** The entities describe exactly what the migration built, and a second run finds nothing to do. */
describe('gateway migrations', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  itKeepsEntitiesAndMigrationsInStep(() => gw, 'gateway');

  it('records a message status once (inbound notifications are deduplicated by the database)', async () => {
    const sql = gw.get(Sql);
    const insert = `INSERT INTO gateway.message_statuses (message_id, status) VALUES ('wamid.x', 'sent')`;
    try {
      await sql.rows(insert);
      await expect(sql.rows(insert)).rejects.toMatchObject({ code: '23505', constraint: 'message_statuses_uq' });
    } finally {
      await sql.rows(`DELETE FROM gateway.message_statuses WHERE message_id = 'wamid.x'`);
    }
  });
});
