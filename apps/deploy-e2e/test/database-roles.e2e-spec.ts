import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateEncryptionKeys } from '@app/secrets';
import { Client } from 'pg';
import { deployableApps, ROOT } from '../src/workspace';
import { freePort, freshDatabase } from '@app/testkit';
import { waitForHealth } from './support/boot';

const run = promisify(execFile);

/** Each app's role and schema, as k8s/database-roles.sql names them. */
const ROLE: Record<string, string> = { docstore: 'docstore', gateway: 'gateway', 'ingest-push': 'ingest_push' };
// Roles are shared by the whole cluster: one fixed password, so runs side by side never lock each other out.
const PASSWORD = 'roles-test-password';

/**
 * k8s/database-roles.sql applied to a real PostgreSQL as an administrator would, then each
 * built app migrated and booted as its own role: it owns its schema and can read no other.
 */
describe('k8s/database-roles.sql', () => {
  let adminUrl: string;
  const roleUrl = (app: string) => {
    const url = new URL(adminUrl);
    url.username = ROLE[app];
    url.password = PASSWORD;
    return url.toString();
  };
  const asRole = async <T>(app: string, fn: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: roleUrl(app) });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  const refusal = (app: string, sql: string) =>
    asRole(app, (c) => c.query(sql)).then(
      () => 'allowed',
      (error: Error) => error.message,
    );

  beforeAll(async () => {
    adminUrl = await freshDatabase(`t_${process.env.TEST_RUN_ID}_roles`);
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      const passwords = Object.values(ROLE)
        .map((r) => `SET services.${r}_password = '${PASSWORD}';`)
        .join('\n');
      const file = readFileSync(join(ROOT, 'k8s/database-roles.sql'), 'utf8');
      await admin.query(`${passwords}\n${file}`);
      // Twice: running it again is harmless.
      await admin.query(`${passwords}\n${file}`);
    } finally {
      await admin.end();
    }
    await run('npx', ['nx', 'run-many', '-t', 'build', '-p', deployableApps().join(','), '--output-style=static'], {
      cwd: ROOT,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    });
  }, 300_000);

  it('refuses to run without the passwords, naming the setting', async () => {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await expect(admin.query(readFileSync(join(ROOT, 'k8s/database-roles.sql'), 'utf8'))).rejects.toThrow(
        'Set services.docstore_password before running database-roles.sql',
      );
    } finally {
      await admin.end();
    }
  });

  it('gives each role login, connect and its own schema, and no administrative attribute', async () => {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query<Record<string, unknown>>(
        `SELECT r.rolname, r.rolcanlogin, r.rolsuper, r.rolcreatedb, r.rolcreaterole, r.rolbypassrls, r.rolreplication,
                has_database_privilege(r.rolname, current_database(), 'CONNECT') AS connect,
                has_database_privilege(r.rolname, current_database(), 'CREATE') AS create_schemas,
                has_database_privilege(r.rolname, current_database(), 'TEMPORARY') AS temporary,
                (SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = r.rolname) AS schema_owner
         FROM pg_roles r WHERE r.rolname = ANY($1) ORDER BY r.rolname`,
        [Object.values(ROLE)],
      );
      const expected = (name: string, temporary: boolean) => ({
        rolname: name,
        rolcanlogin: true,
        rolsuper: false,
        rolcreatedb: false,
        rolcreaterole: false,
        rolbypassrls: false,
        rolreplication: false,
        connect: true,
        create_schemas: false,
        temporary,
        schema_owner: name,
      });
      // Sales ingestion stages each file in a temporary table: ingest_push alone needs TEMPORARY.
      expect(rows).toEqual([expected('docstore', false), expected('gateway', false), expected('ingest_push', true)]);
    } finally {
      await admin.end();
    }
  });

  describe.each(deployableApps())('%s with its role', (app) => {
    it('migrates its schema, boots and answers /health with 200', async () => {
      const main = join(ROOT, 'dist', app, 'apps', app, 'src', 'main.js');
      const env = {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        DATABASE_URL: roleUrl(app),
        REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
        REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:roles-${app}:`,
        ENCRYPTION_KEYS: generateEncryptionKeys('roles'),
      };
      const { stdout } = await run(process.execPath, [main, 'migrate'], { cwd: ROOT, env });
      expect(stdout).toContain('The schema is up to date.');
      const tables = await asRole(app, (c) =>
        c.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1 AND tableowner = $2`, [ROLE[app], ROLE[app]]),
      );
      expect(tables.rows[0].n).toBeGreaterThan(1);

      const port = await freePort();
      const child = spawn(process.execPath, [main], { cwd: ROOT, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      try {
        const status = await waitForHealth(port, child);
        expect({ status, stderr: status === 200 ? '' : stderr.slice(-2000) }).toEqual({ status: 200, stderr: '' });
      } finally {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }, 120_000);

    it('can read no other schema, create no schema and write nothing into public', async () => {
      for (const other of Object.keys(ROLE).filter((a) => a !== app)) {
        expect(await refusal(app, `SELECT count(*) FROM ${ROLE[other]}.migrations`)).toBe(`permission denied for schema ${ROLE[other]}`);
      }
      expect(await refusal(app, 'CREATE SCHEMA intruder')).toMatch(/^permission denied for database/);
      expect(await refusal(app, 'CREATE TABLE public.intruder (id int)')).toBe('permission denied for schema public');
    });
  });
});
