import { parseArgs } from 'node:util';
import { InvalidConfigError, loadConfig } from '@app/config';
import { Pool } from 'pg';
import type { DataSource, MigrationInterface } from 'typeorm';
import { DatabaseConfig, directDatabaseUrl } from './database.config';
import { migrateDatabase, migrationPending } from './migrate';
import { Sql } from './sql.service';

/** One option of a command: `--<name> <value>`. */
export interface CommandOption {
  /** The value's placeholder in usage lines, e.g. `uuid`. */
  value: string;
  description: string;
  required?: boolean;
}

/** A command an app's `main.js` runs against its migrated database (e.g. minting a credential). */
export interface DatabaseCommand<K extends string = string, A = unknown> {
  name: string;
  summary: string;
  options: Readonly<Record<K, CommandOption>>;
  /** The command's arguments from its options; throws an Error with one sentence when they are wrong. Runs before the database opens. */
  parse(values: Readonly<Partial<Record<K, string>>>): A;
  /** Does the work; what it returns is all the command prints. */
  run(sql: Sql, args: A): Promise<string>;
}

export interface CommandLineSpec {
  /** How users start the program, for usage lines (e.g. `node apps/docstore/src/main.js`). */
  program: string;
  /** The app's schema, migrated before a command runs. */
  schema: string;
  /** The schema's migrations: a command migrates first only when one of them is not yet in the schema's migrations table. */
  migrations: ReadonlyArray<new () => MigrationInterface>;
  /** The app's TypeORM data source, loaded (import()) only to migrate: a command on a current schema runs without TypeORM. */
  dataSource(url: string): Promise<DataSource>;
  commands: readonly DatabaseCommand[];
}

/** A command line the user got wrong; its message is one sentence. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A database a command runs in; `close` stops what opening it started. */
export interface CommandDatabase {
  url: string;
  /** How long to wait for another process's migration of the schema (MIGRATION_LOCK_TIMEOUT_SECONDS); default 300 s. */
  migrationLockTimeoutSeconds?: number;
  close(): Promise<void>;
}

type Parsed = { help: string } | { command: DatabaseCommand; args: unknown };

/** Types a command with its option names, so `parse` sees exactly those. */
export function defineCommand<K extends string, A>(command: DatabaseCommand<K, A>): DatabaseCommand<K, A> {
  return command;
}

/**
 * An app's commands: `<command> [--option value ...]` parsed with node:util's parseArgs
 * (`--help` on each), the database opened, migrated under the schema's lock when a migration
 * is pending, the command run on a pg pool of its own and the database closed, the one place
 * every credential CLI does so.
 */
export class CommandLine {
  constructor(private readonly spec: CommandLineSpec) {}

  /** True when `main.js` was started for a command (or its help) rather than to serve. */
  handles(argv: readonly string[]): boolean {
    return argv.length > 0 && argv[0] !== 'migrate';
  }

  /** The command and its arguments, or the help asked for; throws UsageError. */
  parse(argv: readonly string[]): Parsed {
    const [name, ...rest] = argv;
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') return { help: this.overview() };
    const command = this.spec.commands.find((c) => c.name === name);
    if (!command) throw new UsageError(`Unknown command "${name}"; choose from ${this.names().join(', ')}, or none to start the service.`);
    const usage = `usage: ${this.usage(command)}`;
    const parsed = parseOptions(command, rest, usage);
    if (parsed.values.help) return { help: this.help(command) };
    const seen = new Set<string>();
    for (const token of parsed.tokens) {
      if (token.kind !== 'option') continue;
      if (seen.has(token.name)) throw new UsageError(`--${token.name} is given twice; ${usage}.`);
      seen.add(token.name);
    }
    const values = parsed.values as Partial<Record<string, string>>;
    for (const [key, option] of Object.entries<CommandOption>(command.options)) {
      if (option.required && values[key] === undefined) throw new UsageError(`--${key} is required; ${usage}.`);
    }
    try {
      return { command, args: command.parse(values) };
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  }

  /** Parses `argv` and runs the command in the database at `databaseUrl`, migrated first; returns what it prints. */
  async run(argv: readonly string[], databaseUrl: string): Promise<string> {
    const parsed = this.parse(argv);
    return 'help' in parsed ? parsed.help : this.execute(parsed.command, parsed.args, databaseUrl);
  }

  /**
   * `main.js`'s entry: a command prints its result on stdout, or one sentence on stderr and
   * exits 1; anything else (no command, `migrate`) is `serve`'s. The database is DATABASE_URL
   * from the validated settings unless `open` provides one (tools/app-cli.js's local database).
   */
  async main(argv: readonly string[], serve: () => Promise<void>, open: () => Promise<CommandDatabase> = configuredDatabase): Promise<void> {
    if (!this.handles(argv)) return serve();
    try {
      const parsed = this.parse(argv);
      if ('help' in parsed) {
        process.stdout.write(`${parsed.help}\n`);
        return;
      }
      const database = await open();
      try {
        process.stdout.write(`${await this.execute(parsed.command, parsed.args, database.url, database.migrationLockTimeoutSeconds)}\n`);
      } finally {
        await database.close();
      }
    } catch (error) {
      process.stderr.write(`${sentence(error)}\n`);
      process.exitCode = 1;
    }
  }

  private async execute(command: DatabaseCommand, args: unknown, databaseUrl: string, lockTimeoutSeconds?: number): Promise<string> {
    // Two connections, as the app's migration data source has: the command's SQL needs no more.
    const pool = new Pool({ connectionString: databaseUrl, max: 2, application_name: this.spec.schema });
    // A connection lost while idle leaves the pool (the next query opens another) instead of ending the process.
    pool.on('error', () => undefined);
    try {
      if (await this.migrationPending(pool)) await this.migrate(databaseUrl, lockTimeoutSeconds);
      return await command.run(new Sql(pool), args);
    } finally {
      await pool.end();
    }
  }

  /** True when one of the app's migrations is not in its migrations table (TypeORM's names: the instance's `name`, else its class's). */
  private migrationPending(pool: Pool): Promise<boolean> {
    const names = this.spec.migrations.map((migration) => new migration().name || migration.name);
    return migrationPending(async (text, values) => (await pool.query(text, values)).rows, this.spec.schema, names);
  }

  private async migrate(databaseUrl: string, lockTimeoutSeconds?: number): Promise<void> {
    const dataSource = await (await this.spec.dataSource(databaseUrl)).initialize();
    try {
      await migrateDatabase(dataSource, this.spec.schema, { lockTimeoutSeconds });
    } finally {
      await dataSource.destroy();
    }
  }

  private names(): string[] {
    return [...this.spec.commands.map((c) => c.name), 'migrate'];
  }

  private usage(command: DatabaseCommand): string {
    const options = Object.entries<CommandOption>(command.options).map(([key, o]) => (o.required ? `--${key} <${o.value}>` : `[--${key} <${o.value}>]`));
    return [this.spec.program, command.name, ...options].join(' ');
  }

  private help(command: DatabaseCommand): string {
    const rows = Object.entries<CommandOption>(command.options).map(([key, o]) => `  --${`${key} <${o.value}>`.padEnd(26)} ${o.description}`);
    return [`${command.summary}`, '', `usage: ${this.usage(command)}`, '', ...rows, `  ${'--help'.padEnd(28)} this help`].join('\n');
  }

  private overview(): string {
    const rows = this.spec.commands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`);
    return [
      `usage: ${this.spec.program} [command] [options]`,
      '',
      'Without a command, starts the service. Commands (each takes --help):',
      ...rows,
      `  ${'migrate'.padEnd(12)} migrate the schema and exit`,
      '',
      'Commands read DATABASE_DIRECT_URL (else DATABASE_URL) and migrate the schema first; they print only their result.',
    ].join('\n');
  }
}

function parseOptions(command: DatabaseCommand, args: string[], usage: string) {
  const options = Object.fromEntries(Object.keys(command.options).map((key) => [key, { type: 'string' as const }]));
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false, tokens: true });
  } catch (error) {
    throw new UsageError(`${argumentProblem(error)}; ${usage}.`);
  }
}

/** The direct PostgreSQL URL (DATABASE_DIRECT_URL, else DATABASE_URL): a command migrates under a session lock. */
function configuredDatabase(): Promise<CommandDatabase> {
  const config = loadConfig(DatabaseConfig);
  return Promise.resolve({
    url: directDatabaseUrl(config),
    migrationLockTimeoutSeconds: config.MIGRATION_LOCK_TIMEOUT_SECONDS,
    close: () => Promise.resolve(),
  });
}

/** parseArgs's errors quote the argument; they become one sentence naming it. */
function argumentProblem(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const quoted = /'(-{0,2}[^' ]+)/.exec(String(message))?.[1];
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted) return `${quoted} needs a value`;
  if (quoted) return `Unexpected argument "${quoted}"`;
  return 'Unexpected arguments';
}

function sentence(error: unknown): string {
  if (error instanceof UsageError || error instanceof InvalidConfigError) return error.message;
  const message = error instanceof Error ? error.message || error.name : String(error);
  return /[.!?]$/.test(message) ? message : `${message}.`;
}
