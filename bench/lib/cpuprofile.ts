import * as fs from 'node:fs';
import * as path from 'node:path';

/** Summary of a V8 .cpuprofile: self time by function and by package, and inclusive time of chosen frames. */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  /** Wall time covered, ms. */
  wallMs: number;
  /** Time not idle (JS, native, GC, program), ms. */
  busyMs: number;
  gcMs: number;
  topSelf: Array<{ name: string; where: string; category: string; ms: number; share: number }>;
  byCategory: Array<{ category: string; ms: number; share: number }>;
  inclusive: Array<{ label: string; ms: number; share: number }>;
  /** Self time summed over frames that pass each group's test. */
  groups: Array<{ label: string; ms: number; share: number }>;
}

export type FrameTest = (f: CallFrame) => boolean;

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** Which package or layer a frame belongs to. */
export function categoryOf(frame: CallFrame, root: string): string {
  if (SPECIAL.has(frame.functionName) && !frame.url) return frame.functionName;
  const url = frame.url.replace(/^file:\/\//, '');
  if (!url) return '(native / V8 builtins)';
  if (url.startsWith('node:')) return 'node core';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const rel = path.relative(root, url);
  const lib = /^dist\/[^/]+\/libs\/([^/]+)\//.exec(rel);
  if (lib) return `@app/${lib[1]} (libs)`;
  if (/^dist\/[^/]+\/apps\//.test(rel)) return 'docstore app code';
  if (rel.startsWith('bench/')) return 'bench server code';
  return rel.startsWith('..') ? url : rel;
}

function where(frame: CallFrame, root: string): string {
  if (!frame.url) return '';
  let url = frame.url.replace(/^file:\/\//, '');
  const nm = url.lastIndexOf('/node_modules/');
  url = nm >= 0 ? url.slice(nm + '/node_modules/'.length) : path.relative(root, url) || url;
  return `${url}:${frame.lineNumber + 1}`;
}

/**
 * `inclusiveOf` maps a label to a test on frames; a sample counts toward the label when
 * any frame on its stack passes (counted once per sample even under recursion).
 */
export function summarizeProfile(
  file: string,
  root: string,
  inclusiveOf: Array<{ label: string; test: FrameTest }> = [],
  groupsOf: Array<{ label: string; test: FrameTest }> = [],
  top = 25,
): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  // Sample i lasts until sample i+1 (as Chrome DevTools counts it).
  const selfUs = new Map<number, number>();
  const n = profile.samples.length;
  for (let i = 0; i < n; i++) {
    const dt = i + 1 < n ? profile.timeDeltas[i + 1] : 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + Math.max(0, dt));
  }

  const fnSelf = new Map<string, { name: string; where: string; category: string; us: number }>();
  const catSelf = new Map<string, number>();
  const incl = new Map<string, number>(inclusiveOf.map((i) => [i.label, 0]));
  const grp = new Map<string, number>(groupsOf.map((g) => [g.label, 0]));
  let idleUs = 0;
  let totalUs = 0;
  let gcUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    totalUs += us;
    if (frame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    if (frame.functionName === '(garbage collector)') gcUs += us;
    const category = categoryOf(frame, root);
    const key = `${frame.functionName}@${frame.url}:${frame.lineNumber}:${frame.columnNumber}`;
    const entry = fnSelf.get(key) ?? { name: frame.functionName || '(anonymous)', where: where(frame, root), category, us: 0 };
    entry.us += us;
    fnSelf.set(key, entry);
    catSelf.set(category, (catSelf.get(category) ?? 0) + us);
    for (const g of groupsOf) if (g.test(frame)) grp.set(g.label, grp.get(g.label)! + us);
    if (inclusiveOf.length > 0) {
      const hit = new Set<string>();
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const f = byId.get(cur)!.callFrame;
        for (const i of inclusiveOf) if (!hit.has(i.label) && i.test(f)) hit.add(i.label);
      }
      for (const label of hit) incl.set(label, incl.get(label)! + us);
    }
  }
  const busyUs = totalUs - idleUs;
  const share = (us: number) => (busyUs > 0 ? us / busyUs : 0);
  return {
    file,
    wallMs: (profile.endTime - profile.startTime) / 1000,
    busyMs: busyUs / 1000,
    gcMs: gcUs / 1000,
    topSelf: [...fnSelf.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({ name: e.name, where: e.where, category: e.category, ms: e.us / 1000, share: share(e.us) })),
    byCategory: [...catSelf.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([category, us]) => ({ category, ms: us / 1000, share: share(us) })),
    inclusive: [...incl.entries()].map(([label, us]) => ({ label, ms: us / 1000, share: share(us) })),
    groups: [...grp.entries()].map(([label, us]) => ({ label, ms: us / 1000, share: share(us) })),
  };
}
