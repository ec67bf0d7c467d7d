import { Injectable } from '@nestjs/common';
import { storableTimestamp } from '@app/database';
import { ValidationFailedException } from '@app/errors';
import type { PageQuery } from '@app/pagination';
import { WebhookEvents } from '@app/webhooks';
import type { DocumentScope } from '../address/document-scope';
import { DocumentsConfig } from './documents.config';
import { SchemasService } from '../schemas/schemas.service';
import type { DocumentListQuery } from './document-query.dto';
import { DocumentChangeSignal } from './document-changes';
import { DocumentEvent, pageRead } from './document-events';
import type { BulkItemDto, DocumentBodyDto, DocumentDto } from './document.dto';
import {
  DocumentAlreadyExistsException,
  DocumentNotFoundException,
  DocumentPathMismatchException,
  DocumentVersionMismatchException,
} from './documents.exception';
import { DocumentsRepository, type DocumentWrite } from './documents.repository';

/** Keys that name sub-resources of a collection (DOC/bulk, DOC/schema), so no document may use them. */
export const RESERVED_KEYS = new Set(['bulk', 'schema']);

@Injectable()
export class DocumentsService {
  constructor(
    private readonly documents: DocumentsRepository,
    private readonly schemas: SchemasService,
    private readonly config: DocumentsConfig,
    private readonly events: WebhookEvents,
    private readonly changes: DocumentChangeSignal,
  ) {}

  async create(scope: DocumentScope, key: string, body: DocumentBodyDto): Promise<DocumentDto> {
    assertBodyMatchesPath(scope, key, body);
    if (RESERVED_KEYS.has(key)) throw ValidationFailedException.of('key', `The key "${key}" is reserved.`);
    const write = toWrite(body);
    await this.schemas.assertValid(scope, [body.data]);
    const created = await this.documents.create(scope, key, write);
    this.recorded(created.deliveries, created.value !== null);
    if (!created.value) throw new DocumentAlreadyExistsException();
    return created.value;
  }

  async get(scope: DocumentScope, key: string, includeDeleted: boolean): Promise<DocumentDto> {
    const document = await this.documents.find(scope, key, includeDeleted);
    if (!document) throw new DocumentNotFoundException();
    const recording = this.events.emit(scope.clientId, DocumentEvent.Read, [document]);
    if (recording) await recording; // no promise when no webhook wants reads and that is cached
    return document;
  }

  async update(scope: DocumentScope, key: string, body: DocumentBodyDto, expectedVersion?: number): Promise<DocumentDto> {
    assertBodyMatchesPath(scope, key, body);
    const write = toWrite(body);
    await this.schemas.assertValid(scope, [body.data]);
    const updated = await this.documents.update(scope, key, write, expectedVersion);
    this.recorded(updated.deliveries, updated.value !== null);
    if (updated.value) return updated.value;
    throw await this.whyNothingMatched(scope, key, expectedVersion);
  }

  async delete(scope: DocumentScope, key: string, expectedVersion?: number): Promise<void> {
    const deleted = await this.documents.softDelete(scope, key, expectedVersion);
    this.recorded(deleted.deliveries, deleted.value !== null);
    if (!deleted.value) throw await this.whyNothingMatched(scope, key, expectedVersion);
  }

  /** A page with documents is one `document.read` event naming them (PageRead). */
  async list(scope: DocumentScope, query: DocumentListQuery, page: PageQuery): Promise<{ rows: DocumentDto[]; total: number }> {
    const found = await this.documents.list(scope, query, page.perPage, page.offset);
    if (found.rows.length > 0) await this.events.emit(scope.clientId, DocumentEvent.Read, [pageRead(scope, page, found.rows, found.total)]);
    return found;
  }

  /** Create-or-update per item, all or nothing: schema-checked first, then one statement in one (retried) transaction. */
  async bulk(scope: DocumentScope, items: BulkItemDto[]): Promise<DocumentDto[]> {
    if (items.length > this.config.BULK_MAX_ITEMS) {
      throw ValidationFailedException.of('documents', `The documents field must not have more than ${this.config.BULK_MAX_ITEMS} items.`);
    }
    const seen = new Map<string, number>();
    items.forEach((item, i) => {
      if (RESERVED_KEYS.has(item.key)) throw ValidationFailedException.of(`documents.${i}.key`, `The key "${item.key}" is reserved.`);
      if (seen.has(item.key))
        throw ValidationFailedException.of(`documents.${i}.key`, `The key "${item.key}" also appears at documents.${seen.get(item.key)}.`);
      seen.set(item.key, i);
    });
    const writes = items.map((item, i) => ({ key: item.key, ...toWrite(item, `documents.${i}.`) }));
    await this.schemas.assertValid(
      scope,
      items.map((item) => item.data),
      (i) => `documents.${i}.data`,
    );
    const written = await this.documents.transaction((tx) => this.documents.bulkUpsert(scope, writes, tx));
    this.recorded(written.deliveries, written.value.length > 0);
    return written.value;
  }

  /** After a write committed: wakes the webhook relay, and the change feed when the write changed something. */
  private recorded(deliveries: number, changed: boolean): void {
    this.events.recorded(deliveries);
    if (changed) this.changes.recorded();
  }

  /**
   * Without If-Match the write already waited for any concurrent writer of the row and
   * found it not live, so the answer is 404 whatever happened since. With If-Match, a row
   * live now means the version differed: 412.
   */
  private async whyNothingMatched(scope: DocumentScope, key: string, expectedVersion: number | undefined): Promise<Error> {
    if (expectedVersion === undefined) return new DocumentNotFoundException();
    const state = await this.documents.state(scope, key);
    return state?.live ? new DocumentVersionMismatchException(state.version) : new DocumentNotFoundException();
  }
}

function assertBodyMatchesPath(scope: DocumentScope, key: string, body: DocumentBodyDto): void {
  const path = { environment: scope.environment, context: scope.context, type: scope.type, key };
  for (const field of ['environment', 'context', 'type', 'key'] as const) {
    if (body[field] !== path[field]) throw new DocumentPathMismatchException(field);
  }
}

/** `ttl` sets expires_at to now + ttl; giving both is ambiguous, so refused. */
function toWrite(body: { data: Record<string, unknown>; ttl?: number; expires_at?: string | null }, prefix = ''): DocumentWrite {
  if (body.ttl != null && body.expires_at != null) {
    throw ValidationFailedException.of(`${prefix}ttl`, 'Give either ttl or expires_at, not both.');
  }
  if (body.ttl != null) return { data: body.data, expiresAt: new Date(Date.now() + body.ttl * 1000).toISOString() };
  if (body.expires_at != null) return { data: body.data, expiresAt: storableTimestamp(body.expires_at, `${prefix}expires_at`) };
  return { data: body.data, expiresAt: null };
}
