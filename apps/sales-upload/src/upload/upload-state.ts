import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Part } from './part-plan';
import type { UploadOptions } from './upload-args';

/** What a saved plan is only valid for: the same file, unchanged, to the same service, in parts of the same size. */
export interface UploadIdentity {
  file: string;
  size: number;
  mtimeMs: number;
  url: string;
  maxPartBytes: number;
}

interface SavedState {
  identity: UploadIdentity;
  parts: Part[];
}

export function uploadIdentity(options: Pick<UploadOptions, 'file' | 'url' | 'maxPartBytes'>): UploadIdentity {
  const stat = statSync(options.file);
  return { file: resolve(options.file), size: stat.size, mtimeMs: stat.mtimeMs, url: options.url.toString(), maxPartBytes: options.maxPartBytes };
}

/**
 * The state file of an upload (`<file>.upload-state.json` by default): its plan, with each part's
 * ingestion id once the service confirmed it, so a rerun of the same upload resumes.
 */
export class UploadState {
  constructor(
    readonly path: string,
    readonly identity: UploadIdentity,
  ) {}

  /** The parts saved by an earlier run of this same upload, or null (none, or saved for another file, service or part size). */
  savedParts(): Part[] | null {
    if (!existsSync(this.path)) return null;
    const saved = JSON.parse(readFileSync(this.path, 'utf8')) as SavedState;
    return JSON.stringify(saved.identity) === JSON.stringify(this.identity) ? saved.parts : null;
  }

  /** Writes the plan whole or not at all (a run killed while saving leaves the previous state). */
  save(parts: Part[]): void {
    const saved: SavedState = { identity: this.identity, parts };
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(saved, null, 2));
    renameSync(tmp, this.path);
  }
}
