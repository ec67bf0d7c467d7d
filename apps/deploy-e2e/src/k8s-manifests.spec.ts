import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EncryptionConfig } from '@app/secrets';
import { unknownFields } from './k8s-fields';
import { kustomize, podContainers, selects, type Manifest } from './kustomize';
import { appConfigDeclarations, appSettings } from './settings';
import { deployableApps, ROOT } from './workspace';

/* eslint-disable @typescript-eslint/no-require-imports */
// The Kubernetes API's own schemas (OpenAPI definitions of each kind), compiled by the kubernetes-models package.
const MODELS: Record<string, () => new (data: unknown) => { validate(): void }> = {
  'v1/ConfigMap': () => require('kubernetes-models/v1/ConfigMap').ConfigMap,
  'v1/Namespace': () => require('kubernetes-models/v1/Namespace').Namespace,
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

/** What is wrong with a manifest against its kind's schema: types, required fields, enums, and fields the schema does not have. */
function schemaProblem(m: Manifest): string | null {
  const model = MODELS[`${m.apiVersion}/${m.kind}`];
  if (!model) return `${m.kind} ${m.metadata.name}: no schema for ${m.apiVersion} ${m.kind}`;
  try {
    new (model())(m).validate();
  } catch (error) {
    return `${m.kind} ${m.metadata.name}: ${(error as Error).message}`;
  }
  // The compiled validators accept any field they do not know (the schemas allow them): checked against the schema's properties.
  const unknown = unknownFields(m);
  return unknown.length ? `${m.kind} ${m.metadata.name}: unknown fields ${unknown.join(', ')}` : null;
}

/** Each service's worker-only Deployment: the setting that selects the mode, and the one bounding the longest job it finishes on SIGTERM. */
const WORKERS: Record<string, { deployment: string; mode: string; longestJob: string }> = {
  docstore: { deployment: 'docstore-webhooks', mode: 'WEBHOOK_WORKERS', longestJob: 'WEBHOOK_TIMEOUT_SECONDS' },
  gateway: { deployment: 'gateway-webhooks', mode: 'WEBHOOK_WORKERS', longestJob: 'WEBHOOK_TIMEOUT_SECONDS' },
  'ingest-push': { deployment: 'ingest-push-workers', mode: 'PUSH_WORKERS', longestJob: 'PUSH_TIMEOUT_SECONDS' },
};

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

/** Settings Node itself reads, besides the apps' own. */
const RUNTIME_SETTINGS = new Set(['NODE_OPTIONS']);
/** Read by the OpenTelemetry SDK itself (libs/observability/src/tracing.ts), not by a config class. */
const isRuntimeSetting = (key: string) => RUNTIME_SETTINGS.has(key) || key.startsWith('OTEL_');
const mebibytes = (quantity: string) => Number(/^(\d+)Mi$/.exec(quantity)?.[1] ?? (/^(\d+)Gi$/.test(quantity) ? Number(quantity.slice(0, -2)) * 1024 : NaN));

const OVERLAYS = readdirSync(join(ROOT, 'k8s/overlays'));
const TREES: Array<[string, Manifest[]]> = [
  ['base', kustomize(join(ROOT, 'k8s/base'))],
  ...OVERLAYS.map((o): [string, Manifest[]] => [`overlays/${o}`, kustomize(join(ROOT, 'k8s/overlays', o))]),
];
const of = (ms: Manifest[], kind: string) => ms.filter((m) => m.kind === kind);
const spec = <T>(m: Manifest) => m.spec as T;
const appOf = (c: Container) => /services\/([\w-]+)/.exec(c.image)![1];
/** One of the services' own Deployments (not infrastructure an overlay adds, such as PgBouncer). */
const isApp = (d: Manifest) => podSpec(d).containers.every((c) => /(^|\/)services\/[\w-]+(:|$)/.test(c.image));
const isService = (c: Container) => deployableApps().includes(appOf(c));
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
  const deployments = of(manifests, 'Deployment').filter(isApp);
  const containers = deployments.flatMap((d) => podSpec(d).containers.map((c) => ({ d, c }))).filter(({ c }) => isService(c));

  it('every manifest validates against the Kubernetes schema of its kind', () => {
    expect(manifests.map(schemaProblem).filter(Boolean)).toEqual([]);
    // An overlay also has its Namespace (the base has no namespace of its own).
    const namespace = _name === 'base' ? [] : ['Namespace'];
    expect(new Set(manifests.map((m) => m.kind))).toEqual(
      new Set([
        ...namespace,
        'ConfigMap',
        'Secret',
        'Deployment',
        'Service',
        'HorizontalPodAutoscaler',
        'PodDisruptionBudget',
        'Ingress',
        'Job',
        'PersistentVolumeClaim',
      ]),
    );
  });

  it('has an API Deployment, Service, HPA, PDB, Ingress, ConfigMap, Secret and migration Job per service', () => {
    for (const app of deployableApps()) {
      const names = (kind: string) => of(manifests, kind).map((m) => m.metadata.name);
      expect({
        app,
        deployment: names('Deployment'),
        service: names('Service'),
        hpa: names('HorizontalPodAutoscaler'),
        pdb: names('PodDisruptionBudget'),
        ingress: names('Ingress'),
        configmap: names('ConfigMap'),
        secret: names('Secret'),
        job: names('Job'),
      }).toEqual({
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

  it('bounds the V8 heap (old and young generations) of every container in step with its memory limit: 40% to 75% of it', () => {
    // Above ~75% the rest (buffers, code, native memory) no longer fits and the pod is OOM-killed;
    // far below, a raised limit is wasted (the heap stays where the old limit put it).
    const jobs = of(manifests, 'Job').flatMap((j) => podSpec(j).containers);
    for (const c of [...containers.map(({ c }) => c), ...jobs]) {
      // The old generation, and the young one: three semi-spaces (two, and the new large-object space beside them).
      const options = containerSettings(manifests, c).get('NODE_OPTIONS') ?? '';
      const semiMiB = Number(/--max-semi-space-size=(\d+)/.exec(options)?.[1] ?? 0);
      const heapMiB = Number(/--max-old-space-size=(\d+)/.exec(options)?.[1]) + 3 * semiMiB;
      const limitMiB = mebibytes(String(c.resources?.limits?.memory));
      expect({ container: c.name, heapMiB, limitMiB, agree: heapMiB >= 0.4 * limitMiB && heapMiB <= 0.75 * limitMiB }).toEqual({
        container: c.name,
        heapMiB,
        limitMiB,
        agree: true,
      });
    }
  });

  it('names the storage class of the shared media volume (ReadWriteMany)', () => {
    const claims = of(manifests, 'PersistentVolumeClaim').map((m) => ({
      name: m.metadata.name,
      ...spec<{ accessModes: string[]; storageClassName?: string }>(m),
    }));
    expect(claims).toEqual([
      expect.objectContaining({ name: 'gateway-media', accessModes: ['ReadWriteMany'], storageClassName: expect.stringMatching(/^[a-z0-9][a-z0-9.-]*$/) }),
    ]);
  });

  it('passes only settings the app reads, and every setting it requires', () => {
    const jobs = of(manifests, 'Job').flatMap((j) => podSpec(j).containers);
    for (const c of [...containers.map(({ c }) => c), ...jobs]) {
      const app = appOf(c);
      const reads = appSettings(app);
      const given = containerSettings(manifests, c);
      expect({ app, container: c.name, unknown: [...given.keys()].filter((k) => !reads.has(k) && !isRuntimeSetting(k)) }).toEqual({
        app,
        container: c.name,
        unknown: [],
      });
      const missing = [...reads.values()].filter((s) => s.required && !given.has(s.name)).map((s) => s.name);
      expect({ app, container: c.name, missing }).toEqual({ app, container: c.name, missing: [] });
      // The ingress controller is the one hop in front of every pod.
      expect({ app, TRUST_PROXY: given.get('TRUST_PROXY') }).toEqual({ app, TRUST_PROXY: '1' });
    }
  });

  it('gives every pod a grace period longer than its drain: preStop, then the longest request its Ingress allows (or one worker job)', () => {
    for (const d of deployments) {
      const {
        terminationGracePeriodSeconds: grace = 30,
        containers: [c],
      } = podSpec(d);
      const preStop = Number(c.lifecycle?.preStop?.exec?.command.at(-1) ?? 0);
      // The docstore's change feed holds streams for up to an hour, but the app ends them with a final event at
      // SIGTERM (clients resume elsewhere from their last id), so its timeout does not bound the drain.
      const routes = of(manifests, 'Ingress').filter((i) => backends(i).includes(d.metadata.name) && i.metadata.name !== 'docstore-changes');
      // ingress-nginx's default proxy-read-timeout is 60 s; a worker's longest job is one attempt (its sends run concurrently).
      const worker = Object.values(WORKERS).find((w) => w.deployment === d.metadata.name);
      if (!routes.length && !worker) throw new Error(`Deployment ${d.metadata.name} is neither routed by an Ingress nor a known worker`);
      const longest = routes.length
        ? Math.max(...routes.map((i) => Number(i.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-read-timeout'] ?? 60)))
        : Number(containerSettings(manifests, c).get(worker!.longestJob) ?? appSettings(appOf(c)).get(worker!.longestJob)!.initial);
      expect({ deployment: d.metadata.name, grace, drain: preStop + longest, longer: grace > preStop + longest }).toEqual({
        deployment: d.metadata.name,
        grace,
        drain: preStop + longest,
        longer: true,
      });
      if (routes.length) expect({ deployment: d.metadata.name, preStop }).toEqual({ deployment: d.metadata.name, preStop: 5 });
    }
  });

  it('selects real pods: Services, PDBs and HPAs point at Deployments, Ingresses at Service ports', () => {
    const labels = (d: Manifest) => spec<{ template: { metadata: { labels: Record<string, string> } } }>(d).template.metadata.labels;
    const matches = (selector: Record<string, string>) =>
      of(manifests, 'Deployment').filter((d) => Object.entries(selector).every(([k, v]) => labels(d)[k] === v));
    for (const s of of(manifests, 'Service'))
      expect({ service: s.metadata.name, pods: matches(spec<{ selector: Record<string, string> }>(s).selector).length }).toEqual({
        service: s.metadata.name,
        pods: 1,
      });
    for (const p of of(manifests, 'PodDisruptionBudget'))
      expect({ pdb: p.metadata.name, pods: matches(spec<{ selector: { matchLabels: Record<string, string> } }>(p).selector.matchLabels).length }).toEqual({
        pdb: p.metadata.name,
        pods: 1,
      });
    for (const h of of(manifests, 'HorizontalPodAutoscaler')) {
      const target = spec<{ scaleTargetRef: { kind: string; name: string } }>(h).scaleTargetRef;
      expect(deployments.map((d) => d.metadata.name)).toContain(target.name);
    }
    for (const i of of(manifests, 'Ingress')) {
      for (const name of backends(i)) expect(of(manifests, 'Service').map((s) => s.metadata.name)).toContain(name);
    }
    for (const d of of(manifests, 'Deployment')) expect(of(manifests, 'PodDisruptionBudget').some((p) => p.metadata.name === d.metadata.name)).toBe(true);
  });

  it("runs each service's workers in a Deployment of their own (mode only), the API with them off", () => {
    expect(Object.keys(WORKERS).sort()).toEqual(deployableApps());
    for (const [app, { deployment, mode }] of Object.entries(WORKERS)) {
      expect({ app, reads: appSettings(app).has(mode) }).toEqual({ app, reads: true });
      const byName = (kind: string, name: string) => of(manifests, kind).find((m) => m.metadata.name === name);
      const worker = byName('Deployment', deployment);
      const api = byName('Deployment', app);
      expect({ app, worker: worker?.metadata.name, api: api?.metadata.name }).toEqual({ app, worker: deployment, api: app });
      const [wc] = podSpec(worker!).containers;
      const [ac] = podSpec(api!).containers;
      expect({ app, worker: containerSettings(manifests, wc).get(mode), api: containerSettings(manifests, ac).get(mode) }).toEqual({
        app,
        worker: 'only',
        api: 'off',
      });
      // The same image and settings as the API: only the mode differs, and a worker's node options may (its heap
      // is checked against its memory limit below, with the API's old generation).
      expect({ app, image: wc.image, envFrom: wc.envFrom }).toEqual({ app, image: ac.image, envFrom: ac.envFrom });
      const own = (e: { name: string }) => e.name !== mode && e.name !== 'NODE_OPTIONS';
      expect({ app, env: wc.env?.filter(own) }).toEqual({ app, env: ac.env?.filter(own) });
      const oldSpace = (c: Container) => /--max-old-space-size=\d+/.exec(containerSettings(manifests, c).get('NODE_OPTIONS') ?? '')?.[0];
      expect({ app, heap: oldSpace(wc) }).toEqual({ app, heap: oldSpace(ac) });
      // /health and /metrics on the app's port, probed like the API's; no Service or Ingress sends it traffic.
      expect({ app, ports: wc.ports, ready: wc.readinessProbe?.httpGet, live: wc.livenessProbe?.httpGet }).toEqual({
        app,
        ports: ac.ports,
        ready: { path: '/health', port: 'http' },
        live: { path: '/health/live', port: 'http' },
      });
      expect(spec<{ template: { metadata: { annotations: Record<string, string> } } }>(worker!).template.metadata.annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/path': '/metrics',
        'prometheus.io/port': String(ac.ports![0].containerPort),
      });
      expect(of(manifests, 'Service').filter((sv) => sv.metadata.name === deployment)).toEqual([]);
      expect(of(manifests, 'Ingress').filter((i) => backends(i).includes(deployment))).toEqual([]);
      // Scaled on CPU (queue depth needs an external-metrics adapter: README.md), never below one pod in a disruption.
      const hpa = byName('HorizontalPodAutoscaler', deployment)!;
      expect(spec<{ scaleTargetRef: { name: string } }>(hpa).scaleTargetRef.name).toBe(deployment);
      expect(spec<{ metrics: unknown[] }>(hpa).metrics).toContainEqual({
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
      });
      expect(spec<{ selector: { matchLabels: Record<string, string> } }>(byName('PodDisruptionBudget', deployment)!).selector.matchLabels).toEqual({
        'app.kubernetes.io/name': deployment,
      });
    }
  });

  it("serves the console from nginx with the console server's CSP, and routes its host as `npm start` does", () => {
    const web = deployments.find((d) => d.metadata.name === 'console')!;
    const [c] = podSpec(web).containers;
    expect({ image: appOf(c), ports: c.ports, ready: c.readinessProbe?.httpGet, live: c.livenessProbe?.httpGet }).toEqual({
      image: 'console',
      ports: [{ name: 'http', containerPort: 8080 }],
      ready: { path: '/health', port: 'http' },
      live: { path: '/health/live', port: 'http' },
    });
    expect(of(manifests, 'Service').map((m) => m.metadata.name)).toContain('console');
    // nginx (docker/console-nginx.conf) sends the same Content-Security-Policy as tools/console-server.js.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { CONTENT_SECURITY_POLICY, serviceFor } = require(join(ROOT, 'tools/console-server.js')) as {
      CONTENT_SECURITY_POLICY: string;
      serviceFor(path: string): string | null;
    };
    const nginx = readFileSync(join(ROOT, 'docker/console-nginx.conf'), 'utf8');
    expect(/add_header Content-Security-Policy "([^"]+)" always;/.exec(nginx)?.[1]).toBe(CONTENT_SECURITY_POLICY);
    // Longest prefix wins, as ingress-nginx matches: each sample path reaches the service `npm start` sends it to.
    const host = of(manifests, 'Ingress').filter((i) => i.metadata.name.startsWith('console'));
    const hosts = new Set(host.flatMap((i) => spec<{ rules: Array<{ host: string }> }>(i).rules.map((r) => r.host)));
    expect(hosts.size).toBe(1);
    const routes = host.flatMap(
      (i) => spec<{ rules: Array<{ http: { paths: Array<{ path: string; backend: { service: { name: string } } }> } }> }>(i).rules[0].http.paths,
    );
    const backendOf = (url: string) =>
      routes.filter((r) => url === r.path || url.startsWith(r.path.endsWith('/') ? r.path : `${r.path}/`)).sort((a, b) => b.path.length - a.path.length)[0]
        ?.backend.service.name;
    for (const url of [
      '/api/v1/client/x/tokens',
      '/api/pushm/bulk',
      '/DataInserterSales/api/sales',
      '/DataInserterSales/api/sales/ingestions',
      '/api/Messages',
      '/api/Stats',
      '/',
      '/docstore/documents',
    ]) {
      expect({ url, backend: backendOf(url) }).toEqual({ url, backend: serviceFor(url) ?? 'console' });
    }
  });

  it('migrates each schema in a Job that runs main.js migrate with the app image', () => {
    for (const app of deployableApps()) {
      const job = of(manifests, 'Job').find((j) => j.metadata.name === `${app}-migrate`)!;
      const [c] = podSpec(job).containers;
      expect({ app, command: c.command, image: appOf(c) }).toEqual({ app, command: ['node', `apps/${app}/src/main.js`, 'migrate'], image: app });
    }
  });

  it('routes the API and its docs through the Ingresses, never /health or /metrics', () => {
    // The services' paths (the console host's `/` reaches the console's files, which hold nothing private).
    const paths = of(manifests, 'Ingress').flatMap((i) =>
      spec<{ rules: Array<{ http: { paths: Array<{ path: string; backend: { service: { name: string } } }> } }> }>(i).rules.flatMap((r) =>
        r.http.paths.filter((p) => p.backend.service.name !== 'console').map((p) => p.path),
      ),
    );
    const routed = (url: string) => paths.some((p) => url === p || url.startsWith(p.endsWith('/') ? p : `${p}/`));
    expect(['/metrics', '/health', '/health/live'].filter(routed)).toEqual([]);
    expect(['/docs', '/docs-json', '/api/v1/client/x/tokens', '/api/Medias', '/api/pushm/bulk', '/DataInserterSales/api/sales'].every(routed)).toBe(true);
  });

  it('streams 1 GB ingestion bodies unbuffered on the ingestion route alone, and 100 MB media on the gateway media route alone', () => {
    const annotations = (name: string) => of(manifests, 'Ingress').find((i) => i.metadata.name === name)!.metadata.annotations ?? {};
    const pathOf = (name: string) =>
      spec<{ rules: Array<{ http: { paths: Array<{ path: string }> } }> }>(of(manifests, 'Ingress').find((i) => i.metadata.name === name)!).rules[0].http
        .paths[0].path;
    expect(annotations('ingest-push-sales')).toMatchObject({
      'nginx.ingress.kubernetes.io/proxy-request-buffering': 'off',
      'nginx.ingress.kubernetes.io/proxy-body-size': '1g',
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '600',
    });
    expect(pathOf('ingest-push-sales')).toBe('/DataInserterSales/api/sales');
    expect(annotations('gateway-media')).toMatchObject({ 'nginx.ingress.kubernetes.io/proxy-body-size': '100m' });
    expect(pathOf('gateway-media')).toBe('/api/Medias');
    // The console host streams uploads the same way, on the same path alone.
    expect(annotations('console-sales')).toEqual(annotations('ingest-push-sales'));
    expect(pathOf('console-sales')).toBe('/DataInserterSales/api/sales');
    // The change feed alone: unbuffered, with an hour's timeouts for event streams.
    expect(annotations('docstore-changes')).toEqual({
      'nginx.ingress.kubernetes.io/use-regex': 'true',
      'nginx.ingress.kubernetes.io/proxy-buffering': 'off',
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600',
      'nginx.ingress.kubernetes.io/proxy-send-timeout': '3600',
    });
    expect(pathOf('docstore-changes')).toBe('/api/v1/client/[^/]+/changes$');
    for (const i of of(manifests, 'Ingress').filter(
      (x) => !['ingest-push-sales', 'console-sales', 'gateway-media', 'docstore-changes'].includes(x.metadata.name),
    )) {
      expect({ ingress: i.metadata.name, annotations: i.metadata.annotations }).toEqual({
        ingress: i.metadata.name,
        annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '5m' },
      });
    }
  });
});

describe.each(['production-redis-cluster', 'production-scaled'])('k8s/overlays/%s', (overlay) => {
  it('points every container at the Redis Cluster, reached over TLS', () => {
    const manifests = kustomize(join(ROOT, 'k8s/overlays', overlay));
    const containers = [...of(manifests, 'Deployment').filter(isApp), ...of(manifests, 'Job')].flatMap((m) => podSpec(m).containers).filter(isService);
    expect(containers.length).toBeGreaterThan(0);
    for (const c of containers) {
      const given = containerSettings(manifests, c);
      expect({ container: c.name, nodes: given.get('REDIS_CLUSTER_NODES'), url: given.get('REDIS_URL') }).toEqual({
        container: c.name,
        nodes: expect.stringMatching(/^[\w.-]+:\d+(,[\w.-]+:\d+)*$/),
        url: expect.stringMatching(/^rediss:\/\//),
      });
    }
  });
});

describe('k8s/overlays/production-scaled', () => {
  const manifests = kustomize(join(ROOT, 'k8s/overlays/production-scaled'));
  const byName = (kind: string, name: string) => manifests.find((m) => m.kind === kind && m.metadata.name === name);
  const pooler = byName('Deployment', 'pgbouncer')!;
  type PoolerContainer = Container & {
    volumeMounts: Array<{ name: string; mountPath: string }>;
    readinessProbe: { tcpSocket?: { port: string } };
    livenessProbe: { tcpSocket?: { port: string } };
  };
  const [c] = podSpec(pooler).containers as PoolerContainer[];
  const settings = containerSettings(manifests, c);

  it('runs PgBouncer in transaction mode, pinned, behind a Service, with its roles from a Secret', () => {
    expect(c.image).toMatch(/^[\w./-]+:v?\d+\.\d+[\w.-]*$/);
    expect(Object.fromEntries(['POOL_MODE', 'AUTH_TYPE', 'DEFAULT_POOL_SIZE', 'MAX_CLIENT_CONN'].map((k) => [k, settings.get(k)]))).toEqual({
      POOL_MODE: 'transaction',
      AUTH_TYPE: 'scram-sha-256',
      DEFAULT_POOL_SIZE: expect.stringMatching(/^\d+$/),
      MAX_CLIENT_CONN: expect.stringMatching(/^\d+$/),
    });
    // The auth file is the Secret's userlist.txt, mounted where AUTH_FILE says.
    const volumes = spec<{ template: { spec: { volumes: Array<{ name: string; secret?: { secretName: string } }> } } }>(pooler).template.spec.volumes;
    const authFile = settings.get('AUTH_FILE')!;
    const mount = c.volumeMounts.find((m) => authFile.startsWith(`${m.mountPath}/`) && volumes.find((v) => v.name === m.name)?.secret)!;
    const secret = byName('Secret', volumes.find((v) => v.name === mount.name)!.secret!.secretName)!;
    expect(Object.keys(secret.stringData as object)).toEqual([authFile.slice(mount.mountPath.length + 1)]);
    // Probed on its port, which the Service sends to.
    const port = c.ports![0];
    expect({ ready: c.readinessProbe.tcpSocket, live: c.livenessProbe.tcpSocket, listen: settings.get('LISTEN_PORT') }).toEqual({
      ready: { port: port.name },
      live: { port: port.name },
      listen: String(port.containerPort),
    });
    expect(spec<{ ports: Array<{ port: number; targetPort: string }> }>(byName('Service', 'pgbouncer')!).ports).toEqual([
      expect.objectContaining({ targetPort: port.name }),
    ]);
  });

  it("sends every app's queries through PgBouncer and its migrations, LISTEN and commands straight to PostgreSQL, as the same role", () => {
    const service = spec<{ ports: Array<{ port: number }> }>(byName('Service', 'pgbouncer')!).ports[0];
    const roles = new Set([...String(Object.values(byName('Secret', 'pgbouncer-secrets')!.stringData as object)[0]).matchAll(/^"([^"]+)"/gm)].map((m) => m[1]));
    const containers = [...of(manifests, 'Deployment').filter(isApp), ...of(manifests, 'Job')].flatMap((m) => podSpec(m).containers).filter(isService);
    expect(containers.length).toBeGreaterThan(0);
    for (const app of containers) {
      const given = containerSettings(manifests, app);
      const pooled = new URL(given.get('DATABASE_URL')!);
      const direct = new URL(given.get('DATABASE_DIRECT_URL') ?? 'postgres://missing');
      expect({
        container: app.name,
        mode: given.get('DATABASE_POOLER'),
        pooled: pooled.host,
        direct: direct.host,
        user: direct.username,
        db: direct.pathname,
        known: roles.has(pooled.username),
      }).toEqual({
        container: app.name,
        mode: 'transaction',
        pooled: `pgbouncer:${service.port}`,
        direct: `${settings.get('DB_HOST')}:${settings.get('DB_PORT')}`,
        user: pooled.username,
        db: pooled.pathname,
        known: true,
      });
    }
  });
});

describe('the environments', () => {
  const provider = (tree: string) => {
    const manifests = TREES.find(([name]) => name === tree)![1];
    return (manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'gateway-config')!.data as Record<string, string>).GATEWAY_PROVIDER;
  };

  it('talks to the real chat network in production only: the base and staging keep the sandbox', () => {
    expect({ base: provider('base'), staging: provider('overlays/staging'), production: provider('overlays/production') }).toEqual({
      base: 'sandbox',
      staging: 'sandbox',
      production: 'cloud',
    });
  });
});

/** The `-l` selector of each `kubectl apply -k <overlay>` in a README section's code (none: the whole overlay). */
function applySelectors(section: string): Array<string | null> {
  const readme = readFileSync(join(ROOT, 'k8s/README.md'), 'utf8');
  const start = readme.indexOf(`### ${section}\n`);
  if (start < 0) throw new Error(`k8s/README.md has no section ${section}`);
  const text = readme.slice(start, readme.indexOf('\n### ', start + 1));
  const applies = [...text.matchAll(/kubectl apply -k k8s\/overlays\/production((?: -l '[^']*'| -l [^\s`]+)?)/g)];
  return applies.map(([, flag]) => (flag ? flag.replace(/^ -l '?|'$/g, '') : null));
}

describe('the first deploy and rollout in k8s/README.md', () => {
  const rollout = applySelectors('Rollout');
  const overlays = TREES.filter(([name]) => name.startsWith('overlays/'));

  it('reads two applies from the rollout, both with a selector', () => {
    expect(rollout).toEqual(['app.kubernetes.io/component in (config,migration)', 'app.kubernetes.io/component!=secret-template']);
  });

  it.each(overlays)('applies no Secret template of %s, but everything else', (_name, manifests) => {
    for (const selector of rollout) {
      const secrets = manifests.filter((m) => m.kind === 'Secret' && selects(selector!, m.metadata.labels));
      expect({ selector, secrets: secrets.map((m) => m.metadata.name) }).toEqual({ selector, secrets: [] });
    }
    // Every template is labelled so, and every other object is applied by the last step.
    expect(manifests.filter((m) => m.kind === 'Secret').map((m) => m.metadata.labels?.['app.kubernetes.io/component'])).toEqual(
      expect.arrayContaining(['secret-template']),
    );
    expect(new Set(manifests.filter((m) => m.kind === 'Secret').map((m) => m.metadata.labels?.['app.kubernetes.io/component']))).toEqual(
      new Set(['secret-template']),
    );
    expect(manifests.filter((m) => m.kind !== 'Secret' && !selects(rollout.at(-1)!, m.metadata.labels)).map((m) => m.metadata.name)).toEqual([]);
    // The first step carries the config and the migration Jobs, never a Deployment.
    expect(new Set(manifests.filter((m) => selects(rollout[0]!, m.metadata.labels)).map((m) => m.kind))).toEqual(new Set(['ConfigMap', 'Job']));
  });

  it.each(overlays)('has a Namespace in %s, the one its objects live in, which the namespace step alone selects', (_name, manifests) => {
    const [selector] = applySelectors('First deploy');
    const namespaces = manifests.filter((m) => m.kind === 'Namespace');
    expect(namespaces).toHaveLength(1);
    expect(manifests.filter((m) => selects(selector!, m.metadata.labels))).toEqual(namespaces);
    expect(new Set(manifests.filter((m) => m.kind !== 'Namespace').map((m) => m.metadata.namespace))).toEqual(new Set([namespaces[0].metadata.name]));
  });

  it('builds and points the overlays at every image: the three services and the console', () => {
    const readme = readFileSync(join(ROOT, 'k8s/README.md'), 'utf8');
    const images = new Set(
      TREES.flatMap(([, ms]) =>
        ms
          .flatMap(podContainers)
          .map((c) => /services\/([\w-]+)/.exec(c.image)?.[1])
          .filter(Boolean),
      ),
    );
    expect([...images].sort()).toEqual(['console', 'docstore', 'gateway', 'ingest-push']);
    expect(readme).toContain('for app in docstore gateway ingest-push console; do');
  });
});

describe("production's providers", () => {
  const production = TREES.find(([name]) => name === 'overlays/production')![1];
  // Loaded as settings.ts loads the apps' classes (by require), so both see one copy of the lib.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadConfig } = require('@app/config') as { loadConfig(cls: new () => object, env: NodeJS.ProcessEnv): object };
  const container = (deployment: string) => podSpec(production.find((m) => m.kind === 'Deployment' && m.metadata.name === deployment)!).containers[0];
  /** The app's config class that declares `setting`, loaded with `env`. */
  const classes = new Map<string, Array<new () => object>>();
  const load = (app: string, setting: string, env: Record<string, string>) => {
    if (!classes.has(app)) classes.set(app, appConfigDeclarations(app).flatMap((d) => d.features) as Array<new () => object>);
    const cls = classes.get(app)!.find((c) => setting in new c())!;
    return () => loadConfig(cls, env);
  };

  it.each([
    ['gateway', 'gateway', ['GATEWAY_PROVIDER']],
    ['ingest-push', 'ingest-push', ['PUSH_PROVIDER_ANDROID', 'PUSH_PROVIDER_IOS', 'PUSH_PROVIDER_WEB']],
    ['ingest-push', 'ingest-push-workers', ['PUSH_PROVIDER_ANDROID', 'PUSH_PROVIDER_IOS', 'PUSH_PROVIDER_WEB']],
  ])('%s (%s) runs the real providers, and refuses to start on a sandbox one', (app, deployment, providers) => {
    const settings = Object.fromEntries(containerSettings(production, container(deployment)));
    expect({ deployment, DEPLOY_ENV: settings.DEPLOY_ENV, ALLOW_SANDBOX_PROVIDER: settings.ALLOW_SANDBOX_PROVIDER }).toEqual({
      deployment,
      DEPLOY_ENV: 'production',
      ALLOW_SANDBOX_PROVIDER: undefined,
    });
    for (const provider of providers) {
      expect({ provider, value: settings[provider] }).toEqual({ provider, value: expect.not.stringMatching(/^sandbox$/) });
      // What the Secrets carry (k8s/base/secrets.yaml), with values of one's own.
      const secrets = {
        APNS_KEY_ID: 'ABC123DEFG',
        APNS_TEAM_ID: 'DEF123GHIJ',
        PUSH_OPEN_TOKEN_SECRET: 'an open-token key of at least 32 characters',
        VAPID_PUBLIC_KEY: 'B'.repeat(87),
        VAPID_PRIVATE_KEY: 'p'.repeat(43),
        VAPID_SUBJECT: 'mailto:push@example.com',
      };
      expect(load(app, provider, { ...settings, ...secrets })).not.toThrow();
      expect(load(app, provider, { ...settings, ...secrets, [provider]: 'sandbox' })).toThrow(
        `Setting ${provider} is invalid (must not be sandbox with DEPLOY_ENV=production`,
      );
      const unset: Record<string, string> = { ...settings, ...secrets };
      delete unset[provider];
      expect(load(app, provider, unset)).toThrow(`Setting ${provider} is invalid (must not be sandbox with DEPLOY_ENV=production`);
      expect(load(app, provider, { ...unset, ...secrets, ALLOW_SANDBOX_PROVIDER: 'true' })).not.toThrow();
    }
  });

  it('mounts the FCM and APNs keys where the settings say, from the push keys Secret', () => {
    for (const deployment of ['ingest-push', 'ingest-push-workers']) {
      const c = container(deployment) as Container & { volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }> };
      const settings = containerSettings(production, c);
      const volumes = spec<{ template: { spec: { volumes: Array<{ name: string; secret?: { secretName: string } }> } } }>(
        production.find((m) => m.metadata.name === deployment)!,
      ).template.spec.volumes;
      for (const file of [settings.get('FCM_SERVICE_ACCOUNT_FILE')!, settings.get('APNS_KEY_FILE')!]) {
        const mount = c.volumeMounts.find((m) => file.startsWith(`${m.mountPath}/`))!;
        const secretName = volumes.find((v) => v.name === mount?.name)?.secret?.secretName;
        const secret = production.find((m) => m.kind === 'Secret' && m.metadata.name === secretName);
        expect({
          deployment,
          file,
          readOnly: mount?.readOnly,
          key: Object.keys((secret?.stringData ?? {}) as object).includes(file.slice(mount.mountPath.length + 1)),
        }).toEqual({ deployment, file, readOnly: true, key: true });
      }
    }
  });

  it('staging keeps the sandboxes, which start there', () => {
    const staging = TREES.find(([name]) => name === 'overlays/staging')![1];
    const settings = Object.fromEntries(
      containerSettings(staging, podSpec(staging.find((m) => m.kind === 'Deployment' && m.metadata.name === 'ingest-push')!).containers[0]),
    );
    expect(settings.DEPLOY_ENV).toBeUndefined();
    // With the Secret's open-token key of one's own (the template's CHANGE_ME stops the app, naming it).
    expect(load('ingest-push', 'PUSH_PROVIDER_ANDROID', { ...settings, PUSH_OPEN_TOKEN_SECRET: 'an open-token key of at least 32 characters' })).not.toThrow();
  });
});

describe('the first-credential Jobs (k8s/jobs)', () => {
  const jobs = kustomize(join(ROOT, 'k8s/jobs'));
  const production = TREES.find(([name]) => name === 'overlays/production')![1];
  const COMMANDS = [
    ['docstore', 'token'],
    ['gateway', 'apikey'],
    ['ingest-push', 'apikey'],
    ['ingest-push', 'push-token'],
  ];

  it("run each credential command once, with the image and settings of the app's migration Job, in production's namespace", () => {
    expect(jobs.map(schemaProblem).filter(Boolean)).toEqual([]);
    expect(jobs.map((j) => j.kind)).toEqual(COMMANDS.map(() => 'Job'));
    for (const [app, command] of COMMANDS) {
      const job = jobs.find((j) => podContainers(j)[0].command?.toString().startsWith(`node,apps/${app}/src/main.js,${command},`))!;
      expect({ app, command, found: Boolean(job) }).toEqual({ app, command, found: true });
      const [c] = podSpec(job).containers;
      const migration = podSpec(production.find((m) => m.kind === 'Job' && m.metadata.name === `${app}-migrate`)!).containers[0];
      expect({
        job: job.metadata.name,
        image: c.image.split(':')[0],
        envFrom: c.envFrom,
        namespace: job.metadata.namespace,
        backoffLimit: spec<{ backoffLimit: number }>(job).backoffLimit,
      }).toEqual({
        job: job.metadata.name,
        image: migration.image.split(':')[0],
        envFrom: migration.envFrom,
        namespace: 'services',
        backoffLimit: 0,
      });
      // Selectable alone, as the README applies it.
      expect(jobs.filter((j) => selects(`app.kubernetes.io/name=${job.metadata.name}`, j.metadata.labels))).toEqual([job]);
    }
  });
});

describe('the label selectors', () => {
  it('match as kubectl -l does', () => {
    const labels = { 'app.kubernetes.io/component': 'config', tier: 'x' };
    expect(selects('app.kubernetes.io/component in (config,migration)', labels)).toBe(true);
    expect(selects('app.kubernetes.io/component in (migration)', labels)).toBe(false);
    expect(selects('app.kubernetes.io/component notin (migration)', labels)).toBe(true);
    expect(selects('app.kubernetes.io/component!=secret-template', {})).toBe(true);
    expect(selects('app.kubernetes.io/component!=config', labels)).toBe(false);
    expect(selects('tier=x,app.kubernetes.io/component in (a,config)', labels)).toBe(true);
    expect(selects('tier==y', labels)).toBe(false);
    expect(selects('!tier', labels)).toBe(false);
    expect(selects('tier', labels)).toBe(true);
  });
});

describe('the Secret templates', () => {
  // Loaded as settings.ts loads it (by require), so both see one copy of the lib.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const config = require('@app/config') as { loadConfig(cls: typeof EncryptionConfig, env: NodeJS.ProcessEnv): EncryptionConfig };
  it('hold no ENCRYPTION_KEYS an app would start with: an unedited template stops it, naming the setting', () => {
    const secrets = kustomize(join(ROOT, 'k8s/base')).filter((m) => m.kind === 'Secret');
    const keys = secrets.map((m) => (m.stringData as Record<string, string>).ENCRYPTION_KEYS).filter((v) => v !== undefined);
    expect(keys.length).toBeGreaterThan(0);
    for (const value of keys) {
      expect(() => config.loadConfig(EncryptionConfig, { ENCRYPTION_KEYS: value })).toThrow(
        /^Setting ENCRYPTION_KEYS is invalid \(.*is a placeholder, not a secret key; make one with `openssl rand -base64 32`\); the value is not shown\.$/,
      );
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

  it('rejects a field the schema does not have, at any depth, and nothing else', () => {
    const [deployment] = kustomize(join(ROOT, 'k8s/base')).filter((m) => m.kind === 'Deployment');
    expect(schemaProblem(deployment)).toBeNull();
    const typo = structuredClone(deployment);
    const [c] = podSpec(typo).containers as unknown as Array<Record<string, Record<string, unknown>>>;
    c.livenessProbe = { httpGett: c.livenessProbe.httpGet, periodSeconds: 10 };
    expect(schemaProblem(typo)).toBe(`Deployment ${deployment.metadata.name}: unknown fields spec.template.spec.containers[0].livenessProbe.httpGett`);
    const misplaced = structuredClone(deployment);
    (misplaced.spec as Record<string, unknown>).terminationGracePeriodSeconds = 30;
    (misplaced.metadata as Record<string, unknown>).label = { a: 'b' };
    expect(unknownFields(misplaced)).toEqual(['metadata.label', 'spec.terminationGracePeriodSeconds']);
    // Free-form maps (labels, annotations, ConfigMap data) take any key.
    const labelled = structuredClone(deployment);
    labelled.metadata.labels = { ...labelled.metadata.labels, 'anything.example.com/new': 'x' };
    expect(unknownFields(labelled)).toEqual([]);
  });
});

function backends(ingress: Manifest): string[] {
  return spec<{ rules: Array<{ http: { paths: Array<{ backend: { service: { name: string } } }> } }> }>(ingress).rules.flatMap((r) =>
    r.http.paths.map((p) => p.backend.service.name),
  );
}
