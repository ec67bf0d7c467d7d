import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { dataSourceOptions, type DatabaseOptions } from './data-source-options';
import { DatabaseConfig, directDatabaseUrl } from './database.config';
import { migrateDatabaseAt } from './migrate';
import { Sql } from './sql.service';

/**
 * The app's TypeORM data source on DATABASE_URL, migrated first, and `Sql` on its pool. `DatabaseModule.forRoot`
 * requires it, so importing `@app/database` alone (the commands) loads neither TypeORM nor Nest's module for it.
 */
@Global()
@Module({})
export class DatabaseConnectionModule {
  static forRoot(options: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseConnectionModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [DatabaseConfig],
          useFactory: async (config: DatabaseConfig) => {
            await migrateDatabaseAt(directDatabaseUrl(config), { ...options, lockTimeoutSeconds: config.MIGRATION_LOCK_TIMEOUT_SECONDS });
            return dataSourceOptions(config.DATABASE_URL, config.DB_POOL_SIZE, options, config);
          },
          dataSourceFactory: (dsOptions) => new DataSource(dsOptions!).initialize(),
        }),
      ],
      providers: [
        { provide: Sql, inject: [DataSource, DatabaseConfig], useFactory: (dataSource: DataSource, config: DatabaseConfig) => new Sql(dataSource, config) },
      ],
      exports: [Sql],
    };
  }
}
