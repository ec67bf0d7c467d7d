import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { SandboxConfig } from './sandbox.config';

/** Where the sandbox keeps uploaded files. */
export abstract class MediaStorage {
  /** Writes the stream completely, or not at all. */
  abstract save(accountId: string, id: string, stream: Readable): Promise<void>;
  abstract remove(accountId: string, id: string): Promise<void>;
  /** The stored file; null when there is none. */
  abstract open(accountId: string, id: string): Promise<Readable | null>;
}

/**
 * Files under MEDIA_DIR/<account>/<id>, written to a temporary name and renamed when
 * complete, so a reader never sees half a file. Replicas share it by mounting one volume.
 */
@Injectable()
export class LocalMediaStorage extends MediaStorage {
  constructor(private readonly config: SandboxConfig) {
    super();
  }

  async save(accountId: string, id: string, stream: Readable): Promise<void> {
    const dir = join(this.config.MEDIA_DIR, accountId);
    await mkdir(dir, { recursive: true });
    const partial = join(dir, `${id}.partial`);
    try {
      await pipeline(stream, createWriteStream(partial, { flags: 'wx' }));
      await rename(partial, join(dir, id));
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  async remove(accountId: string, id: string): Promise<void> {
    await rm(join(this.config.MEDIA_DIR, accountId, id), { force: true });
  }

  async open(accountId: string, id: string): Promise<Readable | null> {
    const path = join(this.config.MEDIA_DIR, accountId, id);
    const found = await stat(path).catch(() => null);
    return found?.isFile() ? createReadStream(path) : null;
  }
}
