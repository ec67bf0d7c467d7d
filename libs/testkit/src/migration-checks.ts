import { DataSource } from 'typeorm';
import type { TestApp } from './test-app';

/**
 * The checks every app's schema passes, as tests of the calling describe: the entities
 * describe exactly what the migrations built (otherwise the next `migration:generate`
 * would emit a spurious diff), every migration has run, and a second run finds nothing
 * to do. `app` is the booted app (read when the tests run); `schema` holds its tables.
 */
export function itKeepsEntitiesAndMigrationsInStep(app: () => TestApp, schema: string): void {
  const dataSource = () => app().get(DataSource);

  it('leaves nothing for the schema builder to change', async () => {
    const log = await dataSource().driver.createSchemaBuilder().log();
    expect(log.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('has run every migration, and running them again is a no-op', async () => {
    expect(await dataSource().showMigrations()).toBe(false);
    expect(await dataSource().runMigrations({ transaction: 'each' })).toEqual([]);
    const applied: { name: string }[] = await dataSource().query(`SELECT name FROM "${schema}".migrations ORDER BY id`);
    expect(applied.map((m) => m.name)).toEqual(dataSource().migrations.map((m) => m.name));
  });
}
