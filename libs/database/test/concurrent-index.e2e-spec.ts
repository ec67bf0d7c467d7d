import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { scratchDatabase } from './support/scratch-database';
import { createIndexConcurrently, dropIndex } from '../src/concurrent-index';
import { dataSourceOptions } from '../src/data-source-options';
import { migrateDatabase } from '../src/migrate';

class EventsAtIndex1700000000000 implements MigrationInterface {
  name = 'EventsAtIndex1700000000000';
  transaction = false;
  up = (q: QueryRunner) => createIndexConcurrently(q, 'events_at_idx', 'events', '("at") WHERE n > 0');
  down = (q: QueryRunner) => dropIndex(q, 'events_at_idx');
}

describe('createIndexConcurrently and dropIndex in a migration (real PostgreSQL)', () => {
  let dataSource: DataSource;
  const indexes = () =>
    dataSource.query(
      `SELECT i.indexname AS name, i.indexdef AS definition, x.indisvalid AS valid
         FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname JOIN pg_index x ON x.indexrelid = c.oid
        WHERE i.schemaname = 'retained' AND i.tablename = 'events'`,
    );

  beforeAll(async () => {
    const url = await scratchDatabase('concurrent_index');
    dataSource = await new DataSource(dataSourceOptions(url, 2, { schema: 'retained', entities: [], migrations: [EventsAtIndex1700000000000] })).initialize();
    await dataSource.query('CREATE SCHEMA retained');
    await dataSource.query('CREATE TABLE retained.events (at timestamptz NOT NULL, n int NOT NULL)');
    await dataSource.query('INSERT INTO retained.events VALUES (now(), 1), (now(), 1)');
    // A build that failed halfway (here on the duplicate) leaves an invalid index of the same name behind.
    await expect(dataSource.query('CREATE UNIQUE INDEX CONCURRENTLY events_at_idx ON retained.events (n)')).rejects.toThrow(/could not create unique index/);
  });
  afterAll(() => dataSource.destroy());

  it('replaces an invalid index left by a failed build with the one defined, built outside a transaction', async () => {
    expect(await indexes()).toEqual([{ name: 'events_at_idx', definition: expect.stringContaining('UNIQUE'), valid: false }]);
    await migrateDatabase(dataSource, 'retained');
    expect(await indexes()).toEqual([
      { name: 'events_at_idx', definition: 'CREATE INDEX events_at_idx ON retained.events USING btree (at) WHERE (n > 0)', valid: true },
    ]);
  });

  it('drops it again on undo, inside the transaction TypeORM runs every undo in', async () => {
    await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await indexes()).toEqual([]);
  });
});
