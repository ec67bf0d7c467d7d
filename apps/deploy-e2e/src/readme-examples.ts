import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** The line a README marks a shell block with to make it an example that the doc test runs. */
export const EXAMPLE_MARKER = '<!-- example -->';

export interface ExampleBlock {
  /** 1-based line of the block's opening fence. */
  line: number;
  code: string;
}

export interface ExampleFailure {
  /** The opening fence line of the block that failed (or was running when time ran out). */
  line: number;
  /** The shell's exit code, or how long it ran before it was stopped. */
  reason: string;
  /** What that block printed, stdout and stderr together. */
  output: string;
}

const FENCE = /^(`{3,}|~{3,})\s*([\w-]*)/;

/**
 * The example blocks of a Markdown text, in order: a fenced `sh` (or `bash`) block right under a line
 * holding only EXAMPLE_MARKER. A marker above anything else is an error, so a typo cannot silently
 * take an example out of the test.
 */
export function extractExamples(markdown: string): ExampleBlock[] {
  const lines = markdown.split('\n');
  const blocks: ExampleBlock[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (fence !== undefined) {
      if (open && lines[i].trim() === open[1] && open[1].startsWith(fence)) fence = undefined;
      continue;
    }
    if (open) {
      fence = open[1];
      continue;
    }
    if (lines[i].trim() !== EXAMPLE_MARKER) continue;
    const start = FENCE.exec(lines[i + 1] ?? '');
    if (!start || !['sh', 'bash'].includes(start[2])) {
      throw new Error(`line ${i + 1}: ${EXAMPLE_MARKER} must stand right above a \`\`\`sh block.`);
    }
    const end = lines.findIndex((text, j) => j > i + 1 && text.trim() === start[1]);
    if (end === -1) throw new Error(`line ${i + 2}: the example block is never closed.`);
    blocks.push({ line: i + 2, code: lines.slice(i + 2, end).join('\n') });
    i = end;
  }
  return blocks;
}

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/**
 * Runs the blocks in order in one bash with `set -eo pipefail`, as a reader pasting them into one
 * terminal would (later blocks use earlier ones' variables). Resolves with the first block that
 * failed, or null. A marker printed before each block splits the output by block.
 */
export function runExamples(blocks: ExampleBlock[], options: RunOptions): Promise<ExampleFailure | null> {
  const nonce = `doctest-${randomBytes(8).toString('hex')}`;
  const script = ['set -eo pipefail', ...blocks.flatMap((b) => [`printf '%s %d\\n' ${nonce} ${b.line}`, b.code])].join('\n');
  return new Promise((resolvePromise, reject) => {
    // A process group of its own, so a timeout stops the block's children (curl, npm) too.
    const child = spawn('bash', ['-c', 'exec 2>&1\n' + script], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    let output = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid!, 'SIGKILL');
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && !timedOut) return resolvePromise(null);
      const parts = output.split(new RegExp(`${nonce} (\\d+)\\n`));
      // parts: [before the first block, line, output, line, output, ...]; the last block started is the one that failed.
      const line = parts.length > 1 ? Number(parts[parts.length - 2]) : (blocks[0]?.line ?? 0);
      const reason = timedOut ? `still running after ${options.timeoutMs / 1000} s` : `exit code ${code ?? signal}`;
      resolvePromise({ line, reason, output: parts[parts.length - 1] });
    });
  });
}

/** Every README.md of the repository (root first, then by path), outside dependencies, builds and hidden folders. */
export function readmeFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'tmp') continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'README.md') found.push(path);
    }
  };
  walk('');
  return found.sort((a, b) => (a === 'README.md' ? -1 : b === 'README.md' ? 1 : a.localeCompare(b)));
}

/**
 * What is wrong with the Markdown links of `file` (a path relative to `root`): a link that leaves the
 * repository (a user's clone has nothing beside it) or a relative link to a file that does not exist.
 * Links with a scheme (https:, mailto:) and same-page anchors are not checked.
 */
export function linkProblems(root: string, file: string, markdown: string): string[] {
  const problems: string[] = [];
  for (const { text, line } of proseLines(markdown)) {
    const withoutCode = text.replace(/`[^`]*`/g, '');
    const targets = [
      ...withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
      ...withoutCode.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g),
    ].map((m) => m[1]);
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const path = decodeURIComponent(target.replace(/[#?].*$/, ''));
      const absolute = isAbsolute(path) ? path : resolve(root, dirname(file), path);
      const inside = relative(root, absolute);
      if (isAbsolute(path) || inside === '..' || inside.startsWith(`..${sep}`)) problems.push(`${file}:${line} links outside the repository: ${target}`);
      else if (!existsSync(absolute)) problems.push(`${file}:${line} links to a file that does not exist: ${target}`);
    }
  }
  return problems;
}

/** The lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const prose: { text: string; line: number }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, i) => {
    const open = FENCE.exec(text);
    if (fence === undefined && open) fence = open[1];
    else if (fence !== undefined && open && text.trim() === open[1] && open[1].startsWith(fence)) fence = undefined;
    else if (fence === undefined) prose.push({ text, line: i + 1 });
  });
  return prose;
}
