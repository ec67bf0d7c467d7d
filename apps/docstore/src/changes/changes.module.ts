import { Global, Module } from '@nestjs/common';
import { DocumentChangeSignal } from '../documents/document-changes';
import { TokensModule } from '../tokens/tokens.module';
import { ChangeNotifier } from './change-notifier.service';
import { ChangeSequencer } from './change-sequencer.service';
import { ChangeStreamCaps } from './change-stream-caps.service';
import { ChangeStreams } from './change-streams.service';
import { ChangesController } from './changes.controller';
import { ChangesRepository } from './changes.repository';
import { ChangesService } from './changes.service';

/**
 * The change feed. Global only for `DocumentChangeSignal`, which the document writers call after
 * commit: the documents context declares it and this one provides it, so neither folder imports the other both ways.
 */
@Global()
@Module({
  imports: [TokensModule],
  controllers: [ChangesController],
  providers: [
    ChangesRepository,
    ChangeNotifier,
    ChangeSequencer,
    ChangesService,
    ChangeStreamCaps,
    ChangeStreams,
    { provide: DocumentChangeSignal, useExisting: ChangeSequencer },
  ],
  exports: [DocumentChangeSignal],
})
export class ChangesModule {}
