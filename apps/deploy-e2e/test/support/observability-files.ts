import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../../src/workspace';

/** k8s/observability: the dashboards and the alerting rules the observability checks read. */
export const DIR = join(ROOT, 'k8s/observability');

export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface PrometheusRule {
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  spec: { groups: Array<{ name: string; rules: Rule[] }> };
}
export interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr: string; refId: string }>;
}
export interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query?: { query: string } | string }> };
}

/** Where a query comes from, for the failure messages. */
export interface Query {
  where: string;
  expr: string;
}

export /** A dashboard query as Prometheus receives it: Grafana's variables replaced by what they stand for. */
function resolved(expr: string): string {
  return expr.replace(/\$__rate_interval|\$__interval/g, '5m').replace(/\$\{?\w+\}?/g, '.*');
}

/** The alerting rules, the dashboards, and every PromQL expression of both (dashboard variables resolved). */
export function loadObservability() {
  const rules = parse(readFileSync(join(DIR, 'alerts.yaml'), 'utf8')) as PrometheusRule;
  const dashboardFiles = readdirSync(join(DIR, 'dashboards')).filter((f) => f.endsWith('.json'));
  const dashboards = dashboardFiles.map((f) => ({ file: f, board: JSON.parse(readFileSync(join(DIR, 'dashboards', f), 'utf8')) as Dashboard }));
  const alerts = rules.spec.groups.flatMap((g) => g.rules);
  const queries: Query[] = [
    ...alerts.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
    ...dashboards.flatMap(({ file, board }) =>
      board.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `${file}: "${p.title}" ${t.refId}`, expr: resolved(t.expr) }))),
    ),
  ];
  return { rules, alerts, dashboards, dashboardFiles, queries };
}
