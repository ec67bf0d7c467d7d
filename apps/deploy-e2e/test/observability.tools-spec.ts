import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { loadObservability } from './support/observability-files';

const run = promisify(execFile);

/**
 * Issue 39: k8s/observability's rules and dashboard queries as Prometheus itself loads them (promtool). Needs promtool,
 * which is not an npm package: `npm run test:tools` (jest.tools.config.js), after `.ci/promtool-setup`.
 */
describe('k8s/observability through promtool', () => {
  const { rules, alerts, queries } = loadObservability();

  it('passes promtool: the alerting rules as Prometheus loads them, and every dashboard query', async () => {
    const version = await run('promtool', ['--version']).catch(() => {
      throw new Error('promtool is missing: run .ci/promtool-setup (apt-get install -y prometheus)');
    });
    expect(`${version.stdout}${version.stderr}`).toMatch(/promtool, version/);
    const dir = mkdtempSync(join(tmpdir(), 'observability-'));
    try {
      const dashboardGroup = {
        name: 'dashboard-queries',
        rules: queries.filter((q) => !q.where.startsWith('alert ')).map((q, i) => ({ record: `dashboard:query_${i}:check`, expr: q.expr })),
      };
      writeFileSync(join(dir, 'rules.yaml'), stringify({ groups: [...rules.spec.groups, dashboardGroup] }));
      const { stdout } = await run('promtool', ['check', 'rules', join(dir, 'rules.yaml')]);
      expect(stdout).toContain(`SUCCESS: ${alerts.length + dashboardGroup.rules.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
