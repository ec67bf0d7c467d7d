import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uploadIdentity, UploadState } from './upload-state';

describe('UploadState', () => {
  let dir: string;
  let file: string;
  let statePath: string;
  const url = new URL('http://h/DataInserterSales/api/sales');
  const parts = [
    { start: 0, end: 100, ingestion_id: 'a' },
    { start: 100, end: 180 },
  ];
  const state = (options: { url?: URL; maxPartBytes?: number } = {}) =>
    new UploadState(statePath, uploadIdentity({ file, url: options.url ?? url, maxPartBytes: options.maxPartBytes ?? 100 }));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'upload-state-'));
    file = join(dir, 'sales.csv');
    statePath = `${file}.upload-state.json`;
    writeFileSync(file, 'h\n1\n2\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('has nothing saved before the first run', () => {
    expect(state().savedParts()).toBeNull();
  });

  it('gives a rerun of the same upload the parts saved, confirmations included', () => {
    state().save(parts);
    expect(state().savedParts()).toEqual(parts);
    expect(JSON.parse(readFileSync(statePath, 'utf8'))).toEqual({
      identity: { file, size: 6, mtimeMs: expect.any(Number), url: url.toString(), maxPartBytes: 100 },
      parts,
    });
  });

  it('starts afresh when the file, the service or the part size changed', () => {
    state().save(parts);
    expect(state({ url: new URL('http://other/DataInserterSales/api/sales') }).savedParts()).toBeNull();
    expect(state({ maxPartBytes: 99 }).savedParts()).toBeNull();
    utimesSync(file, new Date(), new Date(Date.now() + 60_000));
    expect(state().savedParts()).toBeNull();
    writeFileSync(file, 'h\n1\n2\n3\n');
    expect(state().savedParts()).toBeNull();
  });

  it('replaces the state file whole, leaving nothing else beside it', () => {
    state().save(parts);
    state().save([{ ...parts[0] }, { ...parts[1], ingestion_id: 'b' }]);
    expect(state().savedParts()?.[1].ingestion_id).toBe('b');
    expect(readdirSync(dir).sort()).toEqual(['sales.csv', 'sales.csv.upload-state.json']);
  });
});
