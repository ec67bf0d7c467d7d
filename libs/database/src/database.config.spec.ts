import 'reflect-metadata';
import { loadConfig } from '@app/config';
import { DatabaseConfig, directDatabaseUrl } from './database.config';

const DB = 'postgres://user:pw@pooler.internal:6432/app';

describe('DatabaseConfig', () => {
  it('talks to a session pooler or PostgreSQL itself by default', () => {
    expect(loadConfig(DatabaseConfig, { DATABASE_URL: DB })).toMatchObject({ DATABASE_POOLER: 'session', DB_POOL_SIZE: 20, PRUNE_BATCH_ROWS: 1000 });
  });

  it('reads the direct URL for session work, which defaults to DATABASE_URL', () => {
    expect(directDatabaseUrl(loadConfig(DatabaseConfig, { DATABASE_URL: DB }))).toBe(DB);
    const direct = 'postgres://user:pw@db-primary:5432/app';
    const config = loadConfig(DatabaseConfig, { DATABASE_URL: DB, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: direct });
    expect(config).toMatchObject({ DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: direct });
    expect(directDatabaseUrl(config)).toBe(direct);
  });

  it('bounds every wait on PostgreSQL by default, and refuses a bound of 0', () => {
    expect(loadConfig(DatabaseConfig, { DATABASE_URL: DB })).toMatchObject({
      DB_CONNECT_TIMEOUT_SECONDS: 5,
      DB_STATEMENT_TIMEOUT_SECONDS: 30,
      DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS: 60,
      MIGRATION_LOCK_TIMEOUT_SECONDS: 300,
    });
    for (const name of [
      'DB_CONNECT_TIMEOUT_SECONDS',
      'DB_STATEMENT_TIMEOUT_SECONDS',
      'DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS',
      'MIGRATION_LOCK_TIMEOUT_SECONDS',
    ]) {
      expect(() => loadConfig(DatabaseConfig, { DATABASE_URL: DB, [name]: '0' })).toThrow(new RegExp(name));
    }
  });

  it('refuses a pooler mode it does not know, and a direct URL that is not PostgreSQL', () => {
    expect(() => loadConfig(DatabaseConfig, { DATABASE_URL: DB, DATABASE_POOLER: 'statement' })).toThrow(/DATABASE_POOLER/);
    expect(() => loadConfig(DatabaseConfig, { DATABASE_URL: DB, DATABASE_DIRECT_URL: 'mysql://db/app' })).toThrow(/DATABASE_DIRECT_URL/);
  });
});
