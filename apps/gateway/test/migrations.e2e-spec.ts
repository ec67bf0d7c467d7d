import 'reflect-metadata';
import { Sql } from '@app/database';
import { DataSource } from 'typeorm';
import { startGateway, type Gateway } from './support/gateway-test';

/** The entities describe exactly what the migration built, and a second run finds nothing to do. */
describe('gateway migrations', () => {
  let gw: Gateway;
  let dataSource: DataSource;

  beforeAll(async () => {
    gw = await startGateway();
    dataSource = gw.get(DataSource);
  });
  afterAll(() => gw.close());

  it('leaves nothing for the schema builder to change', async () => {
    const log = await dataSource.driver.createSchemaBuilder().log();
    expect(log.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('has run every migration, and running them again is a no-op', async () => {
    expect(await dataSource.showMigrations()).toBe(false);
    expect(await dataSource.runMigrations({ transaction: 'each' })).toEqual([]);
    const applied = await gw.get(Sql).rows<{ name: string }>('SELECT name FROM gateway.migrations ORDER BY id');
    expect(applied.map((m) => m.name)).toEqual(dataSource.migrations.map((m) => m.name));
  });

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
