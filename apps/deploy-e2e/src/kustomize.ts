import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  resources?: string[];
  labels?: Array<{ pairs: Record<string, string> }>;
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
  patches?: Array<{ target: { kind?: string; name?: string }; patch: string }>;
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'labels', 'images', 'patches']);

/**
 * Renders a kustomization as `kubectl kustomize` would, for the features k8s/ uses:
 * resources (files and directories), namespace, labels, images and JSON 6902 patches
 * (add/replace, an array index included) with a kind and name-regex target. Anything else is an error, so the
 * manifests never rely on a feature this check cannot see.
 */
export function kustomize(dir: string): Manifest[] {
  const k = parseYaml(join(dir, 'kustomization.yaml'))[0] as Kustomization;
  const unknown = Object.keys(k).filter((key) => !SUPPORTED.has(key));
  if (unknown.length) throw new Error(`${dir}/kustomization.yaml uses ${unknown.join(', ')}, which this renderer does not support`);
  let out: Manifest[] = [];
  for (const resource of k.resources ?? []) {
    const path = join(dir, resource);
    out.push(...(resource.endsWith('.yaml') ? (parseYaml(path) as Manifest[]) : kustomize(path)));
  }
  for (const { pairs } of k.labels ?? []) {
    for (const m of out) m.metadata.labels = { ...m.metadata.labels, ...pairs };
  }
  for (const patch of k.patches ?? []) {
    const name = patch.target.name ? new RegExp(`^(?:${patch.target.name})$`) : undefined;
    const targets = out.filter((m) => (!patch.target.kind || m.kind === patch.target.kind) && (!name || name.test(m.metadata.name)));
    if (targets.length === 0) throw new Error(`${dir}: a patch matches nothing (${JSON.stringify(patch.target)})`);
    const ops = parseYamlText(patch.patch)[0] as Array<{ op: string; path: string; value: unknown }>;
    out = out.map((m) => (targets.includes(m) ? ops.reduce((doc, op) => applyOp(doc, op, dir), m) : m));
  }
  for (const image of k.images ?? []) {
    for (const m of out) {
      for (const container of podContainers(m)) {
        if (container.image === image.name || container.image.startsWith(`${image.name}:`)) {
          container.image = `${image.newName ?? image.name}:${image.newTag ?? 'latest'}`;
        }
      }
    }
  }
  // As kustomize does: a Namespace object takes the namespace's name (it is not itself namespaced).
  if (k.namespace) {
    for (const m of out) {
      if (m.kind === 'Namespace') m.metadata.name = k.namespace;
      else m.metadata.namespace = k.namespace;
    }
  }
  return out;
}

/** The containers of a Deployment's or Job's pod template. */
export function podContainers(m: Manifest): Array<{ image: string } & Record<string, unknown>> {
  const spec = m.spec as { template?: { spec?: { containers?: Array<{ image: string }> } } } | undefined;
  return spec?.template?.spec?.containers ?? [];
}

function applyOp<T>(doc: T, op: { op: string; path: string; value: unknown }, dir: string): T {
  const copy = structuredClone(doc) as Record<string, unknown>;
  const keys = op.path
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = keys.pop()!;
  let at: Record<string, unknown> = copy;
  for (const key of keys) {
    if (at[key] === undefined || at[key] === null) throw new Error(`${dir}: patch path ${op.path} does not exist`);
    at = at[key] as Record<string, unknown>;
  }
  if (op.op === 'replace' && !(last in at)) throw new Error(`${dir}: replace of ${op.path}, which does not exist`);
  if (op.op === 'test') {
    // RFC 6902: the patch applies only if the value there is this one (kustomize fails the build otherwise).
    if (JSON.stringify(at[last]) !== JSON.stringify(op.value)) throw new Error(`${dir}: test of ${op.path} failed: ${JSON.stringify(at[last])}`);
    return copy as T;
  }
  if (op.op !== 'replace' && op.op !== 'add') throw new Error(`${dir}: patch op ${op.op} is not supported`);
  if (Array.isArray(at) && op.op === 'add') {
    // RFC 6902: an index inserts before that element, `-` appends.
    const index = last === '-' ? at.length : Number(last);
    if (!Number.isInteger(index) || index > at.length) throw new Error(`${dir}: patch path ${op.path} is past the end of its array`);
    at.splice(index, 0, op.value);
  } else {
    at[last] = op.value;
  }
  return copy as T;
}

function parseYaml(path: string): unknown[] {
  return parseYamlText(readFileSync(path, 'utf8'), dirname(path));
}

function parseYamlText(text: string, where = 'patch'): unknown[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length) throw new Error(`${where}: ${doc.errors[0].message}`);
      return doc.toJS();
    })
    .filter((doc) => doc !== null);
}

/**
 * Whether `labels` match a label selector as `kubectl -l` takes it: comma-separated `k=v`, `k==v`, `k!=v`
 * (also true without the label), `k in (a,b)`, `k notin (a,b)`, `k` and `!k`.
 */
export function selects(selector: string, labels: Record<string, string> = {}): boolean {
  const terms = selector.match(/[^,(]+(\([^)]*\))?/g) ?? [];
  return terms.every((raw) => {
    const term = raw.trim();
    const set = /^([\w./-]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
    if (set) {
      const values = set[3].split(',').map((v) => v.trim());
      const has = set[1] in labels && values.includes(labels[set[1]]);
      return set[2] === 'in' ? has : !has;
    }
    const equality = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(term);
    if (equality) return equality[2] === '!=' ? labels[equality[1]] !== equality[3] : labels[equality[1]] === equality[3];
    if (/^![\w./-]+$/.test(term)) return !(term.slice(1) in labels);
    if (/^[\w./-]+$/.test(term)) return term in labels;
    throw new Error(`label selector term ${JSON.stringify(term)} is not understood`);
  });
}
