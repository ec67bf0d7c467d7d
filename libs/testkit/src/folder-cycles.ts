import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The folders of an app's `src/` must form a hierarchy: these are the edges and the circles found. */
export interface FolderGraph {
  /** `from -> to` for every import between two different top-level folders (`.` is a file in `src/` itself). */
  edges: string[];
  /** Each circle as the sorted folders of one strongly connected component; empty when there is none. */
  circles: string[][];
}

// `import … from '…'`, `export … from '…'`, `import '…'`, `import('…')`, `require('…')`, type-only included.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]*)['"]/g;

/** The source files under `dir`, tests left out. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test' || entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|js)$/.test(entry.name) && !/\.(spec|e2e-spec|browser-spec)\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** The top-level folder of `src/` that holds `file`, or `.` for a file directly in `src/`. */
function folderOf(srcDir: string, file: string): string {
  const [first, ...rest] = path.relative(srcDir, file).split(path.sep);
  return rest.length === 0 ? '.' : first;
}

/** Reads every import between the top-level folders of `srcDir` (tests left out) and finds the circles. */
export function folderGraph(srcDir: string): FolderGraph {
  const root = path.resolve(srcDir);
  const next = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const from = folderOf(root, file);
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = path.resolve(path.dirname(file), match[1]);
      if (!target.startsWith(root + path.sep)) continue;
      const to = folderOf(root, target);
      if (to === from) continue;
      if (!next.has(from)) next.set(from, new Set());
      next.get(from)?.add(to);
    }
  }
  const edges = [...next].flatMap(([from, tos]) => [...tos].map((to) => `${from} -> ${to}`)).sort();
  return { edges, circles: stronglyConnected(next).filter((component) => component.length > 1) };
}

/** Tarjan's algorithm: the strongly connected components of a directed graph. */
function stronglyConnected(next: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      components.push(component.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return components;
}
