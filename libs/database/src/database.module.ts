import { DynamicModule, Global, Module } from '@nestjs/common';
import type { DatabaseOptions } from './data-source-options';
import { Pruner } from './pruner.service';

/**
 * TypeORM on PostgreSQL, one schema per app, migrated at start (never synchronized). Migrations run on a
 * short-lived connection to the direct URL (they hold a session advisory lock); queries go to DATABASE_URL.
 * The connection (DatabaseConnectionModule: TypeORM, the data source, `Sql`) is required only when an app's
 * module calls `forRoot`, so importing `@app/database` alone (the commands) loads no TypeORM.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseOptions): DynamicModule {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { DatabaseConnectionModule } = require('./database-connection.module') as typeof import('./database-connection.module');
    return {
      module: DatabaseModule,
      imports: [DatabaseConnectionModule.forRoot(options)],
      providers: [Pruner],
      exports: [Pruner],
    };
  }
}
