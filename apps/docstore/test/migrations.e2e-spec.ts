import { Sql } from '@app/database';
import { itKeepsEntitiesAndMigrationsInStep } from '@app/testkit';
import { startDocstore, type Docstore } from './support/docstore-test';

/** The app migrated its schema at boot: the shared checks, then the docstore's own indexes and constraints. */
describe('docstore migrations', () => {
  let ds: Docstore;

  beforeAll(async () => {
    ds = await startDocstore();
  });
  afterAll(() => ds.close());

  itKeepsEntitiesAndMigrationsInStep(() => ds, 'docstore');

  it('creates the GIN index on data (jsonb_path_ops), the unique key index and the other indexes', async () => {
    const indexes = await ds
      .get(Sql)
      .rows<{ indexname: string; indexdef: string }>(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'docstore' AND tablename = 'documents' ORDER BY indexname`,
      );
    const byName = Object.fromEntries(indexes.map((i) => [i.indexname, i.indexdef]));
    expect(byName.documents_data_gin).toMatch(/USING gin \(data jsonb_path_ops\)/);
    expect(byName.documents_scope_key_uq).toMatch(/^CREATE UNIQUE INDEX documents_scope_key_uq .*\(client_id, environment, context, type, key\)$/);
    expect(byName.documents_scope_created_idx).toMatch(/\(client_id, environment, context, type, created_at, id\)$/);
    const others = await ds
      .get(Sql)
      .rows<{ indexname: string; indexdef: string }>(
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
