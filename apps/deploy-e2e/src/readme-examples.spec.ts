import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractExamples, linkProblems, readmeFiles, runExamples } from './readme-examples';

const fixture = [
  '# Tool', //                                          1
  '', //                                                2
  '<!-- example -->', //                                3
  '```sh', //                                           4
  'GREETING=hello', //                                  5
  '```', //                                             6
  '', //                                                7
  'Not an example:', //                                 8
  '', //                                                9
  '```sh', //                                          10
  'exit 3', //                                         11
  '```', //                                            12
  '', //                                               13
  '<!-- example -->', //                               14
  '```sh', //                                          15
  'echo "$GREETING world"', //                         16
  'echo "to stderr" >&2; false | cat', //              17
  'echo never', //                                     18
  '```', //                                            19
  '', //                                               20
  '```md', //                                          21
  '<!-- example -->', //                               22
  '```', //                                            23
].join('\n');

const options = { cwd: tmpdir(), env: { PATH: process.env.PATH }, timeoutMs: 10_000 };

describe('README example extraction', () => {
  it('takes only the shell blocks under the marker, with their fence lines, and skips markers inside code', () => {
    expect(extractExamples(fixture)).toEqual([
      { line: 4, code: 'GREETING=hello' },
      { line: 15, code: 'echo "$GREETING world"\necho "to stderr" >&2; false | cat\necho never' },
    ]);
  });

  it('refuses a marker that does not stand above a shell block, naming its line', () => {
    expect(() => extractExamples('text\n<!-- example -->\n\n```sh\ntrue\n```\n')).toThrow('line 2: <!-- example --> must stand right above a ```sh block.');
    expect(() => extractExamples('<!-- example -->\n```js\n1\n```\n')).toThrow('line 1:');
  });

  it('runs the blocks in one shell and reports the failing one by line, with its own output only (pipefail)', async () => {
    expect(await runExamples(extractExamples(fixture), options)).toEqual({ line: 15, reason: 'exit code 1', output: 'hello world\nto stderr\n' });
  });

  it('passes when every block succeeds', async () => {
    expect(await runExamples(extractExamples(fixture).slice(0, 1), options)).toBeNull();
  });

  it('stops a block that hangs and names it', async () => {
    const blocks = [
      { line: 2, code: 'echo ready' },
      { line: 9, code: 'echo waiting; sleep 30' },
    ];
    expect(await runExamples(blocks, { ...options, timeoutMs: 1000 })).toEqual({ line: 9, reason: 'still running after 1 s', output: 'waiting\n' });
  });
});

describe('README links', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'readme-links-'));
    mkdirSync(join(root, 'apps/one'), { recursive: true });
    writeFileSync(join(root, 'README.md'), '');
    writeFileSync(join(root, 'apps/one/README.md'), '');
    mkdirSync(join(root, 'node_modules/dep'), { recursive: true });
    writeFileSync(join(root, 'node_modules/dep/README.md'), '');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('finds every README but those of dependencies, the root one first', () => {
    expect(readmeFiles(root)).toEqual(['README.md', 'apps/one/README.md']);
  });

  it('accepts links to files of the repository, web addresses and anchors', () => {
    const text = '[root](../../README.md#tests) [web](https://example.com/x) [here](#api) [self](README.md)\n[ref]: ../../README.md\n';
    expect(linkProblems(root, 'apps/one/README.md', text)).toEqual([]);
  });

  it('names each link that leaves the repository or points at a missing file, with its line', () => {
    const text =
      'See [specs](../../../shared/specs/docstore.md).\n\n[gone](../two/README.md) and `[code](../../../x)`\n```\n[in code](../../../y)\n```\n[abs](/etc/passwd)\n';
    expect(linkProblems(root, 'apps/one/README.md', text)).toEqual([
      'apps/one/README.md:1 links outside the repository: ../../../shared/specs/docstore.md',
      'apps/one/README.md:3 links to a file that does not exist: ../two/README.md',
      'apps/one/README.md:7 links outside the repository: /etc/passwd',
    ]);
  });
});
