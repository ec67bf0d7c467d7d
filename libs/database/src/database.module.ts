import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { dataSourceOptions, type DatabaseOptions } from './data-source-options';
import { DatabaseConfig, directDatabaseUrl } from './database.config';
import { migrateDatabaseAt } from './migrate';
import { Pruner } from './pruner.service';
import { Sql } from './sql.service';

/**
 * TypeORM on PostgreSQL, one schema per app, migrated at start (never synchronized). Migrations run on a
 * short-lived connection to the direct URL (they hold a session advisory lock); queries go to DATABASE_URL.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [DatabaseConfig],
          useFactory: async (config: DatabaseConfig) => {
            await migrateDatabaseAt(directDatabaseUrl(config), options);
            return dataSourceOptions(config.DATABASE_URL, config.DB_POOL_SIZE, options);
          },
          dataSourceFactory: (dsOptions) => new DataSource(dsOptions!).initialize(),
        }),
      ],
      providers: [Sql, Pruner],
      exports: [Sql, Pruner],
    };
  }
}
