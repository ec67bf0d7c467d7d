import { Sql } from '@app/database';
import { DataSource } from 'typeorm';
import { startDocstore, type Docstore } from './support/docstore-test';

/**
 * The app migrated its schema at boot. The entities must describe exactly what the
 * migrations built (otherwise the next `migration:generate` would emit a spurious
 * diff), and a second migration run must find nothing to do.
 */
describe('docstore migrations', () => {
  let ds: Docstore;
  let dataSource: DataSource;

  beforeAll(async () => {
    ds = await startDocstore();
    dataSource = ds.get(DataSource);
  });
  afterAll(() => ds.close());

  it('leaves nothing for the schema builder to change', async () => {
    const log = await dataSource.driver.createSchemaBuilder().log();
    expect(log.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('has run every migration, and running them again is a no-op', async () => {
    expect(await dataSource.showMigrations()).toBe(false);
    expect(await dataSource.runMigrations({ transaction: 'each' })).toEqual([]);
    const applied = await ds.get(Sql).rows<{ name: string }>('SELECT name FROM docstore.migrations ORDER BY id');
    expect(applied.map((m) => m.name)).toEqual(dataSource.migrations.map((m) => m.name));
  });

  it('creates the GIN index on data (jsonb_path_ops), the unique key index and the other indexes', async () => {
    const indexes = await ds.get(Sql).rows<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'docstore' AND tablename = 'documents' ORDER BY indexname`,
    );
    const byName = Object.fromEntries(indexes.map((i) => [i.indexname, i.indexdef]));
    expect(byName.documents_data_gin).toMatch(/USING gin \(data jsonb_path_ops\)/);
    expect(byName.documents_scope_key_uq).toMatch(/^CREATE UNIQUE INDEX documents_scope_key_uq .*\(client_id, environment, context, type, key\)$/);
    expect(byName.documents_scope_created_idx).toMatch(/\(client_id, environment, context, type, created_at, id\)$/);
    const others = await ds.get(Sql).rows<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'docstore' AND indexname = ANY($1) ORDER BY indexname`,
      [['document_history_version_uq', 'schemas_scope_uq', 'tokens_client_created_idx']],
    );
    expect(others.map((i) => i.indexdef)).toEqual([
      expect.stringMatching(/^CREATE UNIQUE INDEX document_history_version_uq .*\(document_id, version\)$/),
      expect.stringMatching(/^CREATE UNIQUE INDEX schemas_scope_uq .*\(client_id, environment, context, type\)$/),
      expect.stringMatching(/^CREATE INDEX tokens_client_created_idx .*\(client_id, created_at\)$/),
    ]);
  });

  it('enforces one row per key at the database level', async () => {
    const sql = ds.get(Sql);
    const client = '00000000-0000-4000-8000-00000000a001';
    const insert = `INSERT INTO docstore.documents (client_id, environment, context, type, key, data) VALUES ($1, 'e', 'c', 't', 'k', '{}')`;
    try {
      await sql.rows(insert, [client]);
      await expect(sql.rows(insert, [client])).rejects.toMatchObject({ code: '23505', constraint: 'documents_scope_key_uq' });
    } finally {
      await sql.rows('DELETE FROM docstore.documents WHERE client_id = $1', [client]);
    }
  });
});
