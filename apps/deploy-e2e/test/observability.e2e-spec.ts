import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { generateEncryptionKeys } from '@app/secrets';
import { freshDatabase, TS_CHILD_PRELOAD } from '@app/testkit';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import { ROOT } from '../src/workspace';
import { DIR, loadObservability, resolved } from './support/observability-files';

const APPS = ['docstore', 'gateway', 'ingest-push'] as const;
type App = (typeof APPS)[number];
/** Labels Prometheus adds to every scraped series (the target's), beside those the services export. */
const TARGET_LABELS = ['instance', 'job'];

/** Every metric family in a /metrics text: its sample names (a histogram's _bucket, _sum, _count) and the label names its samples carry. */
function families(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (name: string, labels: string[] = []) => {
    const known = out.get(name) ?? new Set<string>();
    for (const label of labels) known.add(label);
    out.set(name, known);
  };
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      const [, name, kind] = type;
      if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) add(name + suffix, suffix === '_bucket' ? ['le'] : []);
      else if (kind === 'summary') for (const suffix of ['', '_sum', '_count']) add(name + suffix, suffix === '' ? ['quantile'] : []);
      else add(name);
      continue;
    }
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (sample)
      add(
        sample[1],
        [...(sample[2] ?? '').matchAll(/([a-zA-Z_]\w*)="/g)].map((m) => m[1]),
      );
  }
  return out;
}

/** The metric names and the label names each vector selector of `expr` uses; throws on a syntax error. */
function selectors(expr: string): Array<{ metric: string; labels: string[] }> {
  const tree = parser.parse(expr);
  const out: Array<{ metric: string; labels: string[] }> = [];
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) throw new Error(`syntax error at ${cursor.from}: …${expr.slice(cursor.from, cursor.from + 30)}`);
    if (cursor.name !== 'VectorSelector') continue;
    const node = cursor.node;
    const identifier = node.getChild('Identifier');
    const labels = node
      .getChild('LabelMatchers')
      ?.getChildren('UnquotedLabelMatcher')
      .map((m) => expr.slice(m.getChild('LabelName')!.from, m.getChild('LabelName')!.to));
    if (!identifier) throw new Error(`a selector without a metric name: ${expr.slice(node.from, node.to)}`);
    out.push({ metric: expr.slice(identifier.from, identifier.to), labels: labels ?? [] });
  } while (cursor.next());
  return out;
}

/** The label names `by (…)` and `ignoring/on (…)` group on. */
function groupings(expr: string): string[] {
  const out: string[] = [];
  const cursor = parser.parse(expr).cursor();
  do {
    if (cursor.name === 'GroupingLabels') {
      for (const label of cursor.node.getChildren('LabelName')) out.push(expr.slice(label.from, label.to));
    }
  } while (cursor.next());
  return out;
}

/** A heading's anchor as the repository's Markdown renderer makes it. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

/**
 * Issue 39: the dashboards and alerting rules of k8s/observability ask only for what the services export. The three
 * services run as processes (from source) on one database; each one's /metrics is scraped. Every PromQL expression of
 * the rules and the dashboards must parse (the Prometheus project's own parser, then promtool), name only exported
 * metrics and use only their labels.
 */
describe('k8s/observability: dashboards and alerts', () => {
  const runId = `${process.env.TEST_RUN_ID ?? process.pid}`.replace(/\W/g, '_');
  const prefix = `test:${runId}:observability:`;
  const encryptionKeys = generateEncryptionKeys('observability');
  const output: string[] = [];
  const children: ChildProcess[] = [];
  const exported = new Map<string, Set<string>>();
  const scraped = new Map<App, string>();
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

  const { rules, alerts, dashboards, dashboardFiles, queries } = loadObservability();
  /** `label_values(<selector>, <label>)` of the dashboards' variables. */
  const variables = dashboards.flatMap(({ file, board }) =>
    board.templating.list
      .filter((v) => v.type === 'query')
      .map((v) => {
        const text = typeof v.query === 'string' ? v.query : v.query!.query;
        const m = /^label_values\((.+),\s*(\w+)\)$/.exec(text);
        if (!m) throw new Error(`${file}: variable ${v.name} is not label_values(…): ${text}`);
        return { where: `${file}: variable ${v.name}`, expr: resolved(m[1]), label: m[2] };
      }),
  );

  const start = (app: App, databaseUrl: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['-r', TS_CHILD_PRELOAD, join(ROOT, 'apps', app, 'src/main.ts')], {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
          REDIS_PREFIX: `${prefix}${app}:`,
          ENCRYPTION_KEYS: encryptionKeys,
          LOG_LEVEL: 'info',
          PORT: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
      child.stdout!.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        output.push(text);
        const ready = /"url":"([^"]+)"[^\n]*"msg":"[\w-]+ ready"/.exec(text);
        if (ready) resolve(ready[1]);
      });
      child.once('exit', (code) => reject(new Error(`${app} exited (${code}): ${output.join('').slice(-2000)}`)));
    });

  beforeAll(async () => {
    const databaseUrl = await freshDatabase(`t_${runId}_observability`);
    // One after the other: each migrates its own schema.
    for (const app of APPS) {
      const url = await start(app, databaseUrl);
      // A request first, so the request histogram and the readiness gauge have samples (and labels) to check.
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const metrics = await fetch(`${url}/metrics`);
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      scraped.set(app, text);
      for (const [name, labels] of families(text)) exported.set(name, new Set([...(exported.get(name) ?? []), ...labels]));
    }
  }, 240_000);

  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    }
    for (const key of await redis.keys(`${prefix}*`)) await redis.del(key);
    redis.disconnect();
  });

  it('scrapes what the dashboards need from the running services', () => {
    for (const app of APPS) {
      const names = families(scraped.get(app)!);
      const wanted = ['http_request_duration_seconds_count', 'db_pool_connections', 'health_ready', 'health_readiness_changes_total'];
      if (app !== 'gateway' || names.has('queue_jobs')) wanted.push('queue_jobs', 'queue_oldest_job_age_seconds');
      for (const name of wanted) expect({ app, name, exported: names.has(name) }).toEqual({ app, name, exported: true });
    }
    expect(exported.get('db_pool_connections')).toEqual(new Set(['service', 'state']));
    expect(exported.get('queue_oldest_job_age_seconds')).toEqual(new Set(['service', 'queue']));
  });

  it('names in every expression only metrics the services export, with their labels', () => {
    expect(queries.length).toBeGreaterThan(30);
    const problems: string[] = [];
    for (const { where, expr } of [...queries, ...variables]) {
      let used: Array<{ metric: string; labels: string[] }>;
      try {
        used = selectors(expr);
      } catch (error) {
        problems.push(`${where}: ${(error as Error).message}`);
        continue;
      }
      if (used.length === 0) problems.push(`${where}: selects no metric`);
      const labelsOfQuery = new Set<string>(TARGET_LABELS);
      for (const { metric, labels } of used) {
        const known = exported.get(metric);
        if (!known) {
          problems.push(`${where}: ${metric} is not exported by any service`);
          continue;
        }
        for (const label of known) labelsOfQuery.add(label);
        // A family with no sample yet (a counter nothing counted) shows no labels: its label names are unknown here.
        const sampled = known.size > 0;
        for (const label of labels)
          if (sampled && !known.has(label) && !TARGET_LABELS.includes(label)) problems.push(`${where}: ${metric} has no label ${label}`);
      }
      for (const label of groupings(expr))
        if (!labelsOfQuery.has(label) && used.every((u) => (exported.get(u.metric)?.size ?? 0) > 0))
          problems.push(`${where}: no selected metric has the label ${label}`);
    }
    for (const { where, expr, label } of variables) {
      const { metric } = selectors(expr)[0];
      if (!exported.get(metric)?.has(label)) problems.push(`${where}: ${metric} has no label ${label}`);
    }
    expect(problems).toEqual([]);
  });

  it('reads metric names, label names and groupings with the Prometheus parser, and refuses a syntax error', () => {
    const text = '# HELP a_total A.\n# TYPE a_total counter\na_total{outcome="x",service="s"} 1\n# TYPE h_seconds histogram\n';
    expect(families(text)).toEqual(
      new Map([
        ['a_total', new Set(['outcome', 'service'])],
        ['h_seconds_bucket', new Set(['le'])],
        ['h_seconds_sum', new Set()],
        ['h_seconds_count', new Set()],
      ]),
    );
    expect(selectors('sum by (service) (rate(a_total{outcome="x"}[5m])) / ignoring(outcome) h_seconds_count')).toEqual([
      { metric: 'a_total', labels: ['outcome'] },
      { metric: 'h_seconds_count', labels: [] },
    ]);
    expect(groupings('sum by (service, queue) (x) / ignoring(state) y')).toEqual(['service', 'queue', 'state']);
    expect(() => selectors('sum(rate(a_total[5m])')).toThrow('syntax error');
    expect(resolved('rate(x{service=~"$service"}[$__rate_interval])')).toBe('rate(x{service=~".*"}[5m])');
  });

  it('covers the alerts the issue asks for, each with a severity, a summary and a runbook section in k8s/README.md', () => {
    expect(rules.kind).toBe('PrometheusRule');
    const names = alerts.map((r) => r.alert);
    for (const wanted of [
      'ServiceHighErrorRatio',
      'QueueJobTooOld',
      'WebhookEndpointFailing',
      'IngestionStalled',
      'PushInvalidTokenRatioHigh',
      'ServiceReadinessFlapping',
    ])
      expect(names).toContain(wanted);
    const readme = readFileSync(join(ROOT, 'k8s/README.md'), 'utf8');
    const headings = new Map([...readme.matchAll(/^#{2,4} (.+)$/gm)].map((m) => [anchor(m[1]), m[1]]));
    for (const rule of alerts) {
      expect({ alert: rule.alert, severity: rule.labels?.severity }).toEqual({ alert: rule.alert, severity: expect.stringMatching(/^(critical|warning)$/) });
      expect(rule.annotations?.summary).toBeTruthy();
      // The runbook is a heading of k8s/README.md that names the alert.
      const section = /^k8s\/README\.md#([\w-]+)$/.exec(rule.annotations?.runbook ?? '')?.[1] ?? '';
      expect({ alert: rule.alert, heading: headings.get(section)?.split(', ').includes(rule.alert!) }).toEqual({ alert: rule.alert, heading: true });
    }
  });

  it('ships every dashboard through the kustomization, each with a uid of its own and the Prometheus data source variable', () => {
    const kustomization = parse(readFileSync(join(DIR, 'kustomization.yaml'), 'utf8')) as {
      resources: string[];
      configMapGenerator: Array<{ name: string; files: string[] }>;
      generatorOptions: { labels: Record<string, string> };
    };
    expect(kustomization.resources).toEqual(['alerts.yaml']);
    expect(kustomization.generatorOptions.labels).toEqual({ grafana_dashboard: '1' });
    expect(kustomization.configMapGenerator.flatMap((g) => g.files).sort()).toEqual(dashboardFiles.map((f) => `dashboards/${f}`).sort());
    expect(new Set(dashboards.map((d) => d.board.uid)).size).toBe(dashboards.length);
    for (const { file, board } of dashboards) {
      expect({ file, datasource: board.templating.list[0] }).toMatchObject({
        file,
        datasource: { name: 'datasource', type: 'datasource', query: 'prometheus' },
      });
      for (const panel of board.panels.filter((p) => p.type !== 'row')) {
        expect({ file, panel: panel.title, datasource: panel.datasource }).toEqual({
          file,
          panel: panel.title,
          datasource: { type: 'prometheus', uid: '${datasource}' },
        });
      }
    }
  });
});
