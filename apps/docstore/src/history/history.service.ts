import { Injectable } from '@nestjs/common';
import type { PageQuery } from '@app/pagination';
import { WebhookEvents } from '@app/webhooks';
import type { DocumentScope } from '../address/document-scope';
import type { DocumentDto } from '../documents/document.dto';
import { DocumentNotFoundException, DocumentVersionMismatchException, HistoryEntryNotFoundException } from '../documents/documents.exception';
import { DocumentChangeSignal } from '../documents/document-changes';
import { DocumentsRepository } from '../documents/documents.repository';
import { SchemasService } from '../schemas/schemas.service';
import type { HistoryEntryDto } from './history-entry.dto';
import { HistoryRepository } from './history.repository';

@Injectable()
export class HistoryService {
  constructor(
    private readonly history: HistoryRepository,
    private readonly documents: DocumentsRepository,
    private readonly schemas: SchemasService,
    private readonly events: WebhookEvents,
    private readonly changes: DocumentChangeSignal,
  ) {}

  /** The history of the document at this key, also while it is soft-deleted (so it can be restored). */
  async list(scope: DocumentScope, key: string, page: PageQuery): Promise<{ rows: HistoryEntryDto[]; total: number }> {
    const documentId = await this.history.documentId(scope, key);
    if (!documentId) throw new DocumentNotFoundException();
    return this.history.list(documentId, page.perPage, page.offset);
  }

  /**
   * Makes an earlier version current again as a new version. A soft-deleted or expired
   * document comes back to life. The data must still satisfy the scope's current schema.
   */
  async restore(scope: DocumentScope, key: string, entryId: string, expectedVersion?: number): Promise<DocumentDto> {
    const restored = await this.documents.transaction(async (tx) => {
      const document = await this.documents.state(scope, key, tx, true);
      if (!document) throw new DocumentNotFoundException();
      const entry = await this.history.entryData(document.id, entryId, tx);
      if (!entry) throw new HistoryEntryNotFoundException();
      if (expectedVersion !== undefined && expectedVersion !== document.version) throw new DocumentVersionMismatchException(document.version);
      await this.schemas.assertValid(scope, [entry.data]);
      return this.documents.restore(document.id, entry.data, tx);
    });
    this.events.recorded(restored.deliveries);
    this.changes.recorded();
    return restored.value!;
  }
}
