import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { kustomize, podContainers } from './kustomize';
import { deployableApps, ROOT } from './workspace';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pinned } = require(join(ROOT, 'docker/lint.js')) as { pinned(image: string): boolean };

interface Step {
  name?: string;
  if?: string;
  run?: string;
  uses?: string;
}

const workflow = parse(readFileSync(join(ROOT, '.github/workflows/ci.yml'), 'utf8')) as {
  on: { pull_request: unknown; push: { branches: string[] } };
  jobs: Record<string, { container: { image: string }; services: Record<string, { image: string }>; env: Record<string, string>; steps: Step[] }>;
};

/** Projects `nx affected` would run for a change to these files. */
function affected(...files: string[]): string[] {
  const out = execFileSync('npx', ['nx', 'show', 'projects', '--affected', `--files=${files.join(',')}`, '--json'], {
    cwd: ROOT,
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    encoding: 'utf8',
  });
  return (JSON.parse(out.slice(out.indexOf('['))) as string[]).sort();
}

describe('.github/workflows/ci.yml', () => {
  const [job] = Object.values(workflow.jobs);
  const run = (condition: string) =>
    job.steps
      .filter((s) => s.if?.includes(condition))
      .map((s) => s.run)
      .join('\n');

  it('runs nx affected against the base branch on pull requests, and everything on main', () => {
    expect(workflow.on.push.branches).toEqual(['main']);
    expect(run("github.event_name == 'pull_request'")).toMatch(
      /nx affected -t lint typecheck test test-browser test-tools build --base="\$NX_BASE" --head="\$NX_HEAD"/,
    );
    expect(run("github.event_name == 'push'")).toMatch(/nx run-many -t lint typecheck test test-browser test-tools build/);
    expect(job.steps.some((s) => s.uses?.startsWith('nrwl/nx-set-shas@'))).toBe(true);
    expect(job.steps.some((s) => s.run?.includes('.ci/browser-setup'))).toBe(true);
    expect(job.steps.some((s) => s.run?.includes('.ci/promtool-setup'))).toBe(true);
  });

  it('gives the tests PostgreSQL and Redis as service containers, every image pinned', () => {
    expect(Object.keys(job.services).sort()).toEqual(['postgres', 'redis']);
    expect(job.env.TEST_DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
    expect(job.env.TEST_REDIS_URL).toBe('redis://redis:6379');
    for (const image of [job.container.image, ...Object.values(job.services).map((s) => s.image)])
      expect({ image, pinned: pinned(image) }).toEqual({ image, pinned: true });
  });
});

describe('.github/workflows/images.yml', () => {
  const images = parse(readFileSync(join(ROOT, '.github/workflows/images.yml'), 'utf8')) as {
    on: { push: { branches: string[] } };
    permissions: Record<string, string>;
    env: { REGISTRY: string };
    jobs: Record<string, { strategy: { matrix: { app: string[] } }; steps: Array<Step & { with?: Record<string, string | boolean> }> }>;
  };
  const [job] = Object.values(images.jobs);
  const build = job.steps.find((s) => s.uses?.startsWith('docker/build-push-action@'))!;

  it('builds and pushes an image of every deployable app from docker/Dockerfile on each push to main', () => {
    expect(images.on.push.branches).toEqual(['main']);
    expect([...job.strategy.matrix.app].sort()).toEqual(deployableApps());
    expect(build.with).toMatchObject({ context: '.', file: 'docker/Dockerfile', 'build-args': 'APP=${{ matrix.app }}', push: true });
    expect(job.steps.some((s) => s.uses?.startsWith('docker/login-action@'))).toBe(true);
    expect(images.permissions).toEqual({ contents: 'read' });
  });

  it('builds the console image from docker/Dockerfile.console, tagged like the others', () => {
    const consoleJob = images.jobs.console;
    const consoleBuild = consoleJob.steps.find((s) => s.uses?.startsWith('docker/build-push-action@'))!;
    expect(consoleBuild.with).toMatchObject({
      context: '.',
      file: 'docker/Dockerfile.console',
      push: true,
      tags: '${{ env.REGISTRY }}/services/console:${{ github.sha }}',
    });
    expect(consoleJob.steps.some((s) => s.uses?.startsWith('docker/login-action@'))).toBe(true);
  });

  it('tags each image by its commit, under the registry and names the overlays deploy', () => {
    expect(build.with!.tags).toBe('${{ env.REGISTRY }}/services/${{ matrix.app }}:${{ github.sha }}');
    const registry = /'([^']+)' *}}$/.exec(images.env.REGISTRY)![1];
    for (const overlay of readdirSync(join(ROOT, 'k8s/overlays'))) {
      for (const image of kustomize(join(ROOT, 'k8s/overlays', overlay))
        .flatMap(podContainers)
        .map((c) => c.image)) {
        // Infrastructure an overlay adds (PgBouncer) is someone else's image, pinned to a version.
        const ours = /(^|\/)services\//.test(image);
        const expected = ours
          ? new RegExp(`^${registry.replace(/\./g, '\\.')}/services/(${[...deployableApps(), 'console'].join('|')}):`)
          : /^[\w./-]+:v?\d+\.\d+[\w.-]*$/;
        expect({ overlay, image }).toEqual({ overlay, image: expect.stringMatching(expected) });
      }
    }
  });
});

describe('nx affected', () => {
  it('runs every test project when the Jest preset or the local services the tests start change', () => {
    const all = affected('jest.preset.js');
    expect(all).toEqual(expect.arrayContaining([...deployableApps(), 'deploy-e2e', 'testkit', 'observability']));
    expect(affected('tools/local-services.js')).toEqual(expect.arrayContaining(all));
  }, 60_000);

  it('runs only the deployment checks for a change under k8s/ or docker/', () => {
    expect(affected('k8s/base/docstore.yaml', 'docker/Dockerfile')).toEqual(['deploy-e2e']);
  }, 60_000);
});
