import { DynamicModule, Global, Module } from '@nestjs/common';
import type { DatabaseOptions } from './data-source-options';
import { Pruner } from './pruner.service';

/**
 * TypeORM on PostgreSQL, one schema per app, migrated at start (never synchronized). Migrations run on a
 * short-lived connection to the direct URL (they hold a session advisory lock); queries go to DATABASE_URL.
 * The connection (DatabaseConnectionModule, which provides `Sql`) is imported when the app starts.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [import('./database-connection.module').then(({ DatabaseConnectionModule }) => DatabaseConnectionModule.forRoot(options))],
      providers: [Pruner],
      exports: [Pruner],
    };
  }
}
