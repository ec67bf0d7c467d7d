import { Module } from '@nestjs/common';
import { LocalMediaStorage, MediaStorage } from './media.storage';
import { SandboxPlayback } from './sandbox-playback.service';
import { SandboxProvider } from './sandbox.provider';
import { SandboxRepository } from './sandbox.repository';

/** The in-process network: its provider, its playback of statuses and reviews, and what it stores. */
@Module({
  providers: [SandboxRepository, { provide: MediaStorage, useClass: LocalMediaStorage }, SandboxPlayback, SandboxProvider],
  exports: [SandboxProvider],
})
export class SandboxModule {}
