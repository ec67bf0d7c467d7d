import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { folderGraph } from './folder-cycles';

describe('folderGraph', () => {
  let src: string;
  const write = (file: string, text: string): void => {
    mkdirSync(path.dirname(path.join(src, file)), { recursive: true });
    writeFileSync(path.join(src, file), text);
  };

  beforeEach(() => {
    src = mkdtempSync(path.join(tmpdir(), 'folder-graph-'));
    write('app.module.ts', "import { A } from './a/a.service';\nimport { B } from './b/b.service';\n");
    write('a/a.service.ts', "import { Shared } from '../shared/shared';\nexport class A {}\n");
    write('b/b.service.ts', "import type { Shared } from '../shared/shared';\nexport class B {}\n");
    write('shared/shared.ts', 'export class Shared {}\n');
  });
  afterEach(() => rmSync(src, { recursive: true, force: true }));

  it('finds no circle in a hierarchy, and lists its edges', () => {
    expect(folderGraph(src)).toEqual({ edges: ['. -> a', '. -> b', 'a -> shared', 'b -> shared'], circles: [] });
  });

  it('finds a circle made by a type-only import through a third folder', () => {
    write('shared/uses-b.ts', "export type { B } from '../b/b.service';\n");
    write('b/more.ts', "import type { A } from '../a/a.service';\n");
    expect(folderGraph(src).circles).toEqual([['a', 'b', 'shared']]);
  });

  it('counts a folder that imports a file of src/ itself as a circle with the root', () => {
    write('a/back.ts', "export { x } from '../app.module';\n");
    expect(folderGraph(src).circles).toEqual([['.', 'a']]);
  });

  it('leaves tests out', () => {
    write('shared/shared.spec.ts', "import { A } from '../a/a.service';\n");
    write('test/a.e2e-spec.ts', "import { B } from '../b/b.service';\n");
    expect(folderGraph(src).circles).toEqual([]);
  });
});
