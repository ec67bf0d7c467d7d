import type { EntitySchema, MixedList } from 'typeorm';

export interface DatabaseOptions {
  /** The PostgreSQL schema that holds all of this app's tables. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
}

export function dataSourceOptions(url: string, poolSize: number, options: DatabaseOptions) {
  return {
    type: 'postgres' as const,
    url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    // gen_random_uuid() is built into PostgreSQL 13+: no extension to install.
    uuidExtension: 'pgcrypto' as const,
    installExtensions: false,
    migrationsRun: false,
    poolSize,
    extra: { application_name: options.schema },
  };
}
