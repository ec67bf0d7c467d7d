import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { kustomize, type Manifest } from './kustomize';
import { appSettings } from './settings';
import { deployableApps, ROOT } from './workspace';

/* eslint-disable @typescript-eslint/no-require-imports */
// The Kubernetes API's own schemas (OpenAPI definitions of each kind), compiled by the kubernetes-models package.
const MODELS: Record<string, () => new (data: unknown) => { validate(): void }> = {
  'v1/ConfigMap': () => require('kubernetes-models/v1/ConfigMap').ConfigMap,
  'v1/Secret': () => require('kubernetes-models/v1/Secret').Secret,
  'v1/Service': () => require('kubernetes-models/v1/Service').Service,
  'v1/PersistentVolumeClaim': () => require('kubernetes-models/v1/PersistentVolumeClaim').PersistentVolumeClaim,
  'apps/v1/Deployment': () => require('kubernetes-models/apps/v1/Deployment').Deployment,
  'batch/v1/Job': () => require('kubernetes-models/batch/v1/Job').Job,
  'autoscaling/v2/HorizontalPodAutoscaler': () => require('kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler').HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': () => require('kubernetes-models/policy/v1/PodDisruptionBudget').PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': () => require('kubernetes-models/networking.k8s.io/v1/Ingress').Ingress,
};
/* eslint-enable @typescript-eslint/no-require-imports */

function schemaProblem(m: Manifest): string | null {
  const model = MODELS[`${m.apiVersion}/${m.kind}`];
  if (!model) return `${m.kind} ${m.metadata.name}: no schema for ${m.apiVersion} ${m.kind}`;
  try {
    new (model())(m).validate();
    return null;
  } catch (error) {
    return `${m.kind} ${m.metadata.name}: ${(error as Error).message}`;
  }
}

interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: Array<{ name: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

const OVERLAYS = readdirSync(join(ROOT, 'k8s/overlays'));
const TREES: Array<[string, Manifest[]]> = [['base', kustomize(join(ROOT, 'k8s/base'))], ...OVERLAYS.map((o): [string, Manifest[]] => [`overlays/${o}`, kustomize(join(ROOT, 'k8s/overlays', o))])];
const of = (ms: Manifest[], kind: string) => ms.filter((m) => m.kind === kind);
const spec = <T>(m: Manifest) => m.spec as T;
const appOf = (c: Container) => /services\/([\w-]+)/.exec(c.image)![1];
const podSpec = (m: Manifest) => spec<{ template: { spec: { terminationGracePeriodSeconds?: number; containers: Container[] } } }>(m).template.spec;

/** Every setting a container gets (env, and the keys of the ConfigMaps and Secrets it loads), with its value. */
function containerSettings(ms: Manifest[], c: Container): Map<string, string> {
  const out = new Map<string, string>();
  for (const from of c.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef!;
    const source = ms.find((m) => m.kind === (from.configMapRef ? 'ConfigMap' : 'Secret') && m.metadata.name === ref.name);
    if (!source) throw new Error(`container ${c.name} loads ${ref.name}, which is not in the manifests`);
    const data = (source.data ?? source.stringData ?? {}) as Record<string, string>;
    for (const [k, v] of Object.entries(data)) out.set(k, v);
  }
  for (const e of c.env ?? []) out.set(e.name, e.value ?? '');
  return out;
}

describe.each(TREES)('k8s/%s', (_name, manifests) => {
  const deployments = of(manifests, 'Deployment');
  const containers = deployments.flatMap((d) => podSpec(d).containers.map((c) => ({ d, c })));

  it('every manifest validates against the Kubernetes schema of its kind', () => {
    expect(manifests.map(schemaProblem).filter(Boolean)).toEqual([]);
    expect(new Set(manifests.map((m) => m.kind))).toEqual(new Set(['ConfigMap', 'Secret', 'Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Ingress', 'Job', 'PersistentVolumeClaim']));
  });

  it('has an API Deployment, Service, HPA, PDB, Ingress, ConfigMap, Secret and migration Job per service', () => {
    for (const app of deployableApps()) {
      const names = (kind: string) => of(manifests, kind).map((m) => m.metadata.name);
      expect({ app, deployment: names('Deployment'), service: names('Service'), hpa: names('HorizontalPodAutoscaler'), pdb: names('PodDisruptionBudget'), ingress: names('Ingress'), configmap: names('ConfigMap'), secret: names('Secret'), job: names('Job') }).toEqual({
        app,
        deployment: expect.arrayContaining([app]),
        service: expect.arrayContaining([app]),
        hpa: expect.arrayContaining([app]),
        pdb: expect.arrayContaining([app]),
        ingress: expect.arrayContaining([app]),
        configmap: expect.arrayContaining([`${app}-config`, 'services-config']),
        secret: expect.arrayContaining([`${app}-secrets`]),
        job: expect.arrayContaining([`${app}-migrate`]),
      });
    }
  });

  it('probes /health (readiness) and /health/live (liveness) on the named port the app listens on', () => {
    for (const { d, c } of containers) {
      const app = appOf(c);
      const port = Number(containerSettings(manifests, c).get('PORT') ?? appSettings(app).get('PORT')!.initial);
      expect({ deployment: d.metadata.name, port, ready: c.readinessProbe?.httpGet, live: c.livenessProbe?.httpGet, ports: c.ports }).toEqual({
        deployment: d.metadata.name,
        port: Number(appSettings(app).get('PORT')!.initial),
        ready: { path: '/health', port: 'http' },
        live: { path: '/health/live', port: 'http' },
        ports: [{ name: 'http', containerPort: port }],
      });
      expect(c.resources?.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
      expect(c.resources?.limits).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
    }
  });

  it('passes only settings the app reads, and every setting it requires', () => {
    const jobs = of(manifests, 'Job').flatMap((j) => podSpec(j).containers);
    for (const c of [...containers.map(({ c }) => c), ...jobs]) {
      const app = appOf(c);
      const reads = appSettings(app);
      const given = containerSettings(manifests, c);
      expect({ app, container: c.name, unknown: [...given.keys()].filter((k) => !reads.has(k)) }).toEqual({ app, container: c.name, unknown: [] });
      const missing = [...reads.values()].filter((s) => s.required && !given.has(s.name)).map((s) => s.name);
      expect({ app, container: c.name, missing }).toEqual({ app, container: c.name, missing: [] });
      // The ingress controller is the one hop in front of every pod.
      expect({ app, TRUST_PROXY: given.get('TRUST_PROXY') }).toEqual({ app, TRUST_PROXY: '1' });
    }
  });

  it('gives every pod a grace period longer than its drain: preStop, then the longest request its Ingress allows (or one webhook attempt)', () => {
    for (const d of deployments) {
      const { terminationGracePeriodSeconds: grace = 30, containers: [c] } = podSpec(d);
      const preStop = Number(c.lifecycle?.preStop?.exec?.command.at(-1) ?? 0);
      const routes = of(manifests, 'Ingress').filter((i) => backends(i).includes(d.metadata.name));
      // ingress-nginx's default proxy-read-timeout is 60 s; a webhook worker's longest job is one attempt.
      const longest = routes.length
        ? Math.max(...routes.map((i) => Number(i.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-read-timeout'] ?? 60)))
        : Number(containerSettings(manifests, c).get('WEBHOOK_TIMEOUT_SECONDS') ?? appSettings(appOf(c)).get('WEBHOOK_TIMEOUT_SECONDS')!.initial);
      expect({ deployment: d.metadata.name, grace, drain: preStop + longest, longer: grace > preStop + longest }).toEqual({ deployment: d.metadata.name, grace, drain: preStop + longest, longer: true });
      if (routes.length) expect({ deployment: d.metadata.name, preStop }).toEqual({ deployment: d.metadata.name, preStop: 5 });
    }
  });

  it('selects real pods: Services, PDBs and HPAs point at Deployments, Ingresses at Service ports', () => {
    const labels = (d: Manifest) => spec<{ template: { metadata: { labels: Record<string, string> } } }>(d).template.metadata.labels;
    const matches = (selector: Record<string, string>) => deployments.filter((d) => Object.entries(selector).every(([k, v]) => labels(d)[k] === v));
    for (const s of of(manifests, 'Service')) expect({ service: s.metadata.name, pods: matches(spec<{ selector: Record<string, string> }>(s).selector).length }).toEqual({ service: s.metadata.name, pods: 1 });
    for (const p of of(manifests, 'PodDisruptionBudget')) expect({ pdb: p.metadata.name, pods: matches(spec<{ selector: { matchLabels: Record<string, string> } }>(p).selector.matchLabels).length }).toEqual({ pdb: p.metadata.name, pods: 1 });
    for (const h of of(manifests, 'HorizontalPodAutoscaler')) {
      const target = spec<{ scaleTargetRef: { kind: string; name: string } }>(h).scaleTargetRef;
      expect(deployments.map((d) => d.metadata.name)).toContain(target.name);
    }
    for (const i of of(manifests, 'Ingress')) {
      for (const name of backends(i)) expect(of(manifests, 'Service').map((s) => s.metadata.name)).toContain(name);
    }
    for (const d of deployments) expect(of(manifests, 'PodDisruptionBudget').some((p) => p.metadata.name === d.metadata.name)).toBe(true);
  });

  it('runs webhook workers apart from the API, scaled on their queue depth', () => {
    const worker = deployments.find((d) => d.metadata.name === 'docstore-webhooks')!;
    expect(containerSettings(manifests, podSpec(worker).containers[0]).get('WEBHOOK_WORKERS')).toBe('only');
    expect(containerSettings(manifests, podSpec(deployments.find((d) => d.metadata.name === 'docstore')!).containers[0]).get('WEBHOOK_WORKERS')).toBe('off');
    const hpa = of(manifests, 'HorizontalPodAutoscaler').find((h) => h.metadata.name === 'docstore-webhooks')!;
    expect(JSON.stringify(hpa.spec)).toContain('"queue":"webhook-delivery"');
  });

  it('migrates each schema in a Job that runs main.js migrate with the app image', () => {
    for (const app of deployableApps()) {
      const job = of(manifests, 'Job').find((j) => j.metadata.name === `${app}-migrate`)!;
      const [c] = podSpec(job).containers;
      expect({ app, command: c.command, image: appOf(c) }).toEqual({ app, command: ['node', `apps/${app}/src/main.js`, 'migrate'], image: app });
    }
  });

  it('routes the API and its docs through the Ingresses, never /health or /metrics', () => {
    const paths = of(manifests, 'Ingress').flatMap((i) => spec<{ rules: Array<{ http: { paths: Array<{ path: string }> } }> }>(i).rules.flatMap((r) => r.http.paths.map((p) => p.path)));
    const routed = (url: string) => paths.some((p) => url === p || url.startsWith(p.endsWith('/') ? p : `${p}/`));
    expect(['/metrics', '/health', '/health/live'].filter(routed)).toEqual([]);
    expect(['/docs', '/docs-json', '/api/v1/client/x/tokens', '/api/Medias', '/api/pushm/bulk', '/DataInserterSales/api/sales'].every(routed)).toBe(true);
  });

  it('streams 1 GB ingestion bodies unbuffered on the ingestion route alone, and 100 MB media on the gateway media route alone', () => {
    const annotations = (name: string) => of(manifests, 'Ingress').find((i) => i.metadata.name === name)!.metadata.annotations ?? {};
    const pathOf = (name: string) => spec<{ rules: Array<{ http: { paths: Array<{ path: string }> } }> }>(of(manifests, 'Ingress').find((i) => i.metadata.name === name)!).rules[0].http.paths[0].path;
    expect(annotations('ingest-push-sales')).toMatchObject({
      'nginx.ingress.kubernetes.io/proxy-request-buffering': 'off',
      'nginx.ingress.kubernetes.io/proxy-body-size': '1g',
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '600',
    });
    expect(pathOf('ingest-push-sales')).toBe('/DataInserterSales/api/sales');
    expect(annotations('gateway-media')).toMatchObject({ 'nginx.ingress.kubernetes.io/proxy-body-size': '100m' });
    expect(pathOf('gateway-media')).toBe('/api/Medias');
    for (const i of of(manifests, 'Ingress').filter((x) => !['ingest-push-sales', 'gateway-media'].includes(x.metadata.name))) {
      expect({ ingress: i.metadata.name, annotations: i.metadata.annotations }).toEqual({
        ingress: i.metadata.name,
        annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '5m' },
      });
    }
  });
});

describe('the settings check', () => {
  it('reads what each app validates at start: its own and the shared settings, defaults and required ones', () => {
    const docstore = appSettings('docstore');
    expect(docstore.get('PORT')).toEqual({ name: 'PORT', required: false, initial: 3001 });
    expect(docstore.get('DATABASE_URL')).toEqual({ name: 'DATABASE_URL', required: true, initial: undefined });
    expect(docstore.get('ENCRYPTION_KEYS')).toMatchObject({ required: true });
    expect(docstore.get('PUBLIC_BASE_URL')).toMatchObject({ required: false });
    expect([...docstore.keys()]).toEqual(expect.arrayContaining(['TRUST_PROXY', 'REDIS_URL', 'LOG_LEVEL', 'WEBHOOK_WORKERS', 'TOKEN_CACHE_TTL_SECONDS']));
    expect(appSettings('gateway').get('PORT')).toMatchObject({ initial: 3002 });
    expect(docstore.has('NOT_A_SETTING')).toBe(false);
  });
});

describe('the schema check', () => {
  it('rejects a manifest of the wrong shape', () => {
    const [deployment] = kustomize(join(ROOT, 'k8s/base')).filter((m) => m.kind === 'Deployment');
    const broken = structuredClone(deployment);
    podSpec(broken).containers[0].ports = [{ name: 'http', containerPort: 'http' as unknown as number }];
    expect(schemaProblem(broken)).toMatch(/containerPort must be integer/);
    const noSelector = structuredClone(deployment);
    delete (noSelector.spec as Record<string, unknown>).selector;
    expect(schemaProblem(noSelector)).toMatch(/selector/);
  });
});

function backends(ingress: Manifest): string[] {
  return spec<{ rules: Array<{ http: { paths: Array<{ backend: { service: { name: string } } }> } }> }>(ingress).rules.flatMap((r) => r.http.paths.map((p) => p.backend.service.name));
}
