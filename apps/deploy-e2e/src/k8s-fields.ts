import { join } from 'node:path';
import ts from 'typescript';
import type { Manifest } from './kustomize';
import { ROOT } from './workspace';

/**
 * The interface each kind's model declares in kubernetes-models (module, interface), whose
 * properties are those of the Kubernetes API's OpenAPI schema the package is generated from.
 */
const KINDS: Record<string, [string, string]> = {
  'v1/ConfigMap': ['kubernetes-models/v1/ConfigMap', 'IConfigMap'],
  'v1/Namespace': ['kubernetes-models/v1/Namespace', 'INamespace'],
  'v1/Secret': ['kubernetes-models/v1/Secret', 'ISecret'],
  'v1/Service': ['kubernetes-models/v1/Service', 'IService'],
  'v1/PersistentVolumeClaim': ['kubernetes-models/v1/PersistentVolumeClaim', 'IPersistentVolumeClaim'],
  'apps/v1/Deployment': ['kubernetes-models/apps/v1/Deployment', 'IDeployment'],
  'batch/v1/Job': ['kubernetes-models/batch/v1/Job', 'IJob'],
  'autoscaling/v2/HorizontalPodAutoscaler': ['kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler', 'IHorizontalPodAutoscaler'],
  'policy/v1/PodDisruptionBudget': ['kubernetes-models/policy/v1/PodDisruptionBudget', 'IPodDisruptionBudget'],
  'networking.k8s.io/v1/Ingress': ['kubernetes-models/networking.k8s.io/v1/Ingress', 'IIngress'],
};

let compiled: { checker: ts.TypeChecker; types: Map<string, ts.Type> } | undefined;

/** Type-checks one generated file that names each kind's interface, once per process. */
function schemaTypes() {
  if (compiled) return compiled;
  const file = join(ROOT, 'apps/deploy-e2e/src/__k8s-kinds__.ts');
  const keys = Object.keys(KINDS);
  const text = keys.map((key, i) => `export type K${i} = import('${KINDS[key][0]}').${KINDS[key][1]};`).join('\n');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2022.d.ts'],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, text, version) : getSourceFile.call(host, name, version, ...rest);
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  host.readFile = (name) => (name === file ? text : readFile.call(host, name));
  const program = ts.createProgram([file], options, host);
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  if (problems.length) throw new Error(`the kubernetes-models types do not compile: ${problems.join('; ')}`);
  const checker = program.getTypeChecker();
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!);
  const types = new Map(keys.map((key, i) => [key, checker.getDeclaredTypeOfSymbol(exports.find((e) => e.name === `K${i}`)!)]));
  compiled = { checker, types };
  return compiled;
}

/**
 * The fields of a manifest that its kind's schema does not have, as paths
 * (`spec.template.spec.containers[0].livenessProbe.httpGett`): the API server drops
 * them silently (or refuses them with strict validation), so a typo never takes effect.
 */
export function unknownFields(m: Manifest): string[] {
  const { checker, types } = schemaTypes();
  const type = types.get(`${m.apiVersion}/${m.kind}`);
  if (!type) throw new Error(`no schema for ${m.apiVersion} ${m.kind}`);
  const out: string[] = [];
  walk(checker, m, type, '', out);
  return out;
}

function walk(checker: ts.TypeChecker, value: unknown, declared: ts.Type, path: string, out: string[]): void {
  if (value === null || typeof value !== 'object') return;
  const type = checker.getNonNullableType(declared);
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
  const candidates = type.isUnion() ? type.types : [type];
  if (Array.isArray(value)) {
    const list = candidates.find((t) => checker.isArrayType(t));
    // Not a list in the schema: the schema validation reports the type.
    if (!list) return;
    const element = checker.getTypeArguments(list as ts.TypeReference)[0];
    value.forEach((item, i) => walk(checker, item, element, `${path}[${i}]`, out));
    return;
  }
  const map = candidates.map((t) => t.getStringIndexType()).find(Boolean);
  for (const [key, child] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (map) {
      walk(checker, child, map, at, out);
      continue;
    }
    const property = candidates.map((t) => t.getProperty(key)).find(Boolean);
    if (!property) out.push(at);
    else walk(checker, child, checker.getTypeOfSymbol(property), at, out);
  }
}
