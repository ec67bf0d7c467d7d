import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type MixedList, type EntitySchema } from 'typeorm';
import { DatabaseConfig } from './database.config';
import { migrateDatabase } from './migrate';
import { Sql } from './sql.service';

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

/** TypeORM on PostgreSQL, one schema per app, migrated at start (never synchronized). */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [DatabaseConfig],
          useFactory: (config: DatabaseConfig) => dataSourceOptions(config.DATABASE_URL, config.DB_POOL_SIZE, options),
          dataSourceFactory: async (dsOptions) => {
            const dataSource = await new DataSource(dsOptions!).initialize();
            await migrateDatabase(dataSource, options.schema);
            return dataSource;
          },
        }),
      ],
      providers: [Sql],
      exports: [Sql],
    };
  }
}
