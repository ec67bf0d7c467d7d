import 'reflect-metadata';
import { ValidationFailedException } from '@app/errors';
import type { WebhookEvents } from '@app/webhooks';
import type { DocumentScope } from '../address/document-scope';
import type { DocumentsConfig } from './documents.config';
import { SchemaValidationException } from '../schemas/schemas.exception';
import type { SchemasService } from '../schemas/schemas.service';
import { DocumentEvent } from './document-events';
import type { DocumentListQuery } from './document-query.dto';
import type { DocumentBodyDto, DocumentDto } from './document.dto';
import {
  DocumentAlreadyExistsException,
  DocumentNotFoundException,
  DocumentPathMismatchException,
  DocumentVersionMismatchException,
} from './documents.exception';
import type { DocumentsRepository, DocumentState, DocumentWrite, Written } from './documents.repository';
import { DocumentsService } from './documents.service';

type RepositoryPart = Pick<DocumentsRepository, 'find' | 'state' | 'create' | 'update' | 'softDelete' | 'bulkUpsert' | 'list' | 'transaction'>;

/**
 * The documents table in memory: what the repository's SQL does for the service (revive on create,
 * version + 1 per write, If-Match, soft delete), one delivery recorded per write while `subscribers` is set.
 */
class FakeDocumentsRepository implements RepositoryPart {
  readonly rows = new Map<string, DocumentDto>();
  subscribers = 0;
  private nextId = 1;

  private at(scope: DocumentScope, key: string): string {
    return [scope.clientId, scope.environment, scope.context, scope.type, key].join('/');
  }

  private static live(row: DocumentDto): boolean {
    return row.deleted_at === null && (row.expires_at === null || Date.parse(row.expires_at) > Date.now());
  }

  private written<T>(value: T): Written<T> {
    return { value, deliveries: value === null ? 0 : this.subscribers };
  }

  private put(scope: DocumentScope, key: string, write: DocumentWrite, previous?: DocumentDto): DocumentDto {
    const now = new Date().toISOString();
    const row: DocumentDto = {
      id: previous?.id ?? String(this.nextId++),
      client_id: scope.clientId,
      environment: scope.environment,
      context: scope.context,
      type: scope.type,
      key,
      data: write.data,
      version: (previous?.version ?? 0) + 1,
      created_at: previous?.created_at ?? now,
      updated_at: now,
      expires_at: write.expiresAt,
      deleted_at: null,
    };
    this.rows.set(this.at(scope, key), row);
    return row;
  }

  find(scope: DocumentScope, key: string, includeDeleted: boolean): Promise<DocumentDto | null> {
    const row = this.rows.get(this.at(scope, key));
    return Promise.resolve(row && (includeDeleted || FakeDocumentsRepository.live(row)) ? row : null);
  }

  state(scope: DocumentScope, key: string): Promise<DocumentState | null> {
    const row = this.rows.get(this.at(scope, key));
    return Promise.resolve(row ? { id: row.id, version: row.version, live: FakeDocumentsRepository.live(row) } : null);
  }

  create(scope: DocumentScope, key: string, write: DocumentWrite): Promise<Written<DocumentDto | null>> {
    const row = this.rows.get(this.at(scope, key));
    if (row && FakeDocumentsRepository.live(row)) return Promise.resolve(this.written(null));
    return Promise.resolve(this.written(this.put(scope, key, write, row)));
  }

  update(scope: DocumentScope, key: string, write: DocumentWrite, expectedVersion?: number): Promise<Written<DocumentDto | null>> {
    const row = this.rows.get(this.at(scope, key));
    if (!row || !FakeDocumentsRepository.live(row) || (expectedVersion !== undefined && expectedVersion !== row.version))
      return Promise.resolve(this.written(null));
    return Promise.resolve(this.written(this.put(scope, key, write, row)));
  }

  softDelete(scope: DocumentScope, key: string, expectedVersion?: number): Promise<Written<DocumentDto | null>> {
    const row = this.rows.get(this.at(scope, key));
    if (!row || !FakeDocumentsRepository.live(row) || (expectedVersion !== undefined && expectedVersion !== row.version))
      return Promise.resolve(this.written(null));
    row.deleted_at = new Date().toISOString();
    return Promise.resolve(this.written(row));
  }

  bulkUpsert(scope: DocumentScope, items: Array<DocumentWrite & { key: string }>): Promise<Written<DocumentDto[]>> {
    const rows = items.map((item) => {
      const row = this.rows.get(this.at(scope, item.key));
      return this.put(scope, item.key, item, row);
    });
    return Promise.resolve({ value: rows, deliveries: rows.length * this.subscribers });
  }

  list(scope: DocumentScope, query: DocumentListQuery, limit: number, offset: number): Promise<{ rows: DocumentDto[]; total: number }> {
    const prefix = this.at(scope, '');
    const all = [...this.rows.entries()]
      .filter(([at, row]) => at.startsWith(prefix) && (query.deleted || FakeDocumentsRepository.live(row)))
      .map(([, row]) => row);
    return Promise.resolve({ rows: all.slice(offset, offset + limit), total: all.length });
  }

  transaction<T>(work: (tx: never) => Promise<T>): Promise<T> {
    return work(undefined as never);
  }
}

/** The webhook events the service hands on: read events emitted, deliveries recorded by writes. */
class FakeWebhookEvents implements Pick<WebhookEvents, 'emit' | 'recorded'> {
  readonly emitted: Array<{ owner: string; eventType: string; count: number }> = [];
  recordedDeliveries = 0;

  emit(owner: string, eventType: string, items: readonly unknown[]): void {
    this.emitted.push({ owner, eventType, count: items.length });
  }

  recorded(deliveries: number): void {
    this.recordedDeliveries += deliveries;
  }
}

/** A collection schema that refuses data holding `bad`. */
class FakeSchemas implements Pick<SchemasService, 'assertValid'> {
  assertValid(_scope: DocumentScope, payloads: unknown[], prefix: (index: number) => string = () => 'data'): Promise<void> {
    const index = payloads.findIndex((data) => typeof data === 'object' && data !== null && 'bad' in data);
    if (index < 0) return Promise.resolve();
    return Promise.reject(new SchemaValidationException([{ property: `${prefix(index)}.bad`, message: 'must not be present' }]));
  }
}

const scope: DocumentScope = { clientId: '0b9a4a57-8c3e-4a8f-9a55-3d0f6f1f2a11', environment: 'production', context: 'shop', type: 'product' };
const body = (key: string, data: Record<string, unknown>, extra: Partial<DocumentBodyDto> = {}): DocumentBodyDto => ({
  environment: scope.environment,
  context: scope.context,
  type: scope.type,
  key,
  data,
  ...extra,
});
const LIST: DocumentListQuery = { filters: [], sort: [], deleted: false };

describe('DocumentsService (in-memory repository)', () => {
  let repository: FakeDocumentsRepository;
  let events: FakeWebhookEvents;
  let service: DocumentsService;
  let changeSignals: number;

  beforeEach(() => {
    changeSignals = 0;
    repository = new FakeDocumentsRepository();
    events = new FakeWebhookEvents();
    const config = { BULK_MAX_ITEMS: 3 } as DocumentsConfig;
    service = new DocumentsService(
      repository as unknown as DocumentsRepository,
      new FakeSchemas() as unknown as SchemasService,
      config,
      events as unknown as WebhookEvents,
      { recorded: () => changeSignals++ },
    );
  });

  it('wakes the change feed after each write that changed a document, not after one that changed nothing', async () => {
    await service.create(scope, 'sku-1', body('sku-1', {}));
    await expect(service.create(scope, 'sku-1', body('sku-1', {}))).rejects.toBeInstanceOf(DocumentAlreadyExistsException);
    await service.update(scope, 'sku-1', body('sku-1', { v: 2 }));
    await service.delete(scope, 'sku-1');
    expect(changeSignals).toBe(3);
  });

  it('creates version 1 and reads it back as stored', async () => {
    const created = await service.create(scope, 'sku-1', body('sku-1', { name: 'Mug', price: 12.5 }));
    expect(created).toMatchObject({ key: 'sku-1', version: 1, data: { name: 'Mug', price: 12.5 }, expires_at: null, deleted_at: null });
    expect(await service.get(scope, 'sku-1', false)).toEqual(created);
  });

  it('refuses a body naming another place than the path (400) and reserved keys (422), writing nothing', async () => {
    await expect(service.create(scope, 'sku-1', body('sku-2', {}))).rejects.toBeInstanceOf(DocumentPathMismatchException);
    await expect(service.create(scope, 'sku-1', { ...body('sku-1', {}), context: 'other' })).rejects.toMatchObject({ status: 400 });
    await expect(service.create(scope, 'bulk', body('bulk', {}))).rejects.toBeInstanceOf(ValidationFailedException);
    expect(repository.rows.size).toBe(0);
  });

  it('answers 409 for a live key, and revives a deleted one with the next version', async () => {
    await service.create(scope, 'k', body('k', { n: 1 }));
    await expect(service.create(scope, 'k', body('k', { n: 2 }))).rejects.toBeInstanceOf(DocumentAlreadyExistsException);
    await service.delete(scope, 'k');
    await expect(service.get(scope, 'k', false)).rejects.toBeInstanceOf(DocumentNotFoundException);
    expect(await service.get(scope, 'k', true)).toMatchObject({ deleted_at: expect.any(String) });
    expect(await service.create(scope, 'k', body('k', { n: 3 }))).toMatchObject({ version: 2, data: { n: 3 }, deleted_at: null });
  });

  it('updates with version + 1; a stale If-Match is 412, a missing document 404', async () => {
    await service.create(scope, 'k', body('k', { n: 1 }));
    expect(await service.update(scope, 'k', body('k', { n: 2 }), 1)).toMatchObject({ version: 2, data: { n: 2 } });
    await expect(service.update(scope, 'k', body('k', { n: 3 }), 1)).rejects.toBeInstanceOf(DocumentVersionMismatchException);
    await expect(service.update(scope, 'gone', body('gone', {}))).rejects.toBeInstanceOf(DocumentNotFoundException);
    await expect(service.delete(scope, 'k', 1)).rejects.toMatchObject({ status: 412 });
    await expect(service.delete(scope, 'gone')).rejects.toBeInstanceOf(DocumentNotFoundException);
  });

  it('sets expires_at from ttl, refuses ttl with expires_at, and treats an expired document as deleted', async () => {
    const before = Date.now();
    const created = await service.create(scope, 'k', body('k', {}, { ttl: 60 }));
    expect(Date.parse(created.expires_at!) - before).toBeGreaterThanOrEqual(59_000);
    await expect(service.create(scope, 'x', body('x', {}, { ttl: 60, expires_at: '2099-01-01T00:00:00Z' }))).rejects.toBeInstanceOf(ValidationFailedException);
    await service.create(scope, 'old', body('old', {}, { expires_at: '2001-01-01T00:00:00Z' }));
    await expect(service.get(scope, 'old', false)).rejects.toBeInstanceOf(DocumentNotFoundException);
    expect(await service.create(scope, 'old', body('old', { again: true }))).toMatchObject({ version: 2, expires_at: null });
  });

  it('writes nothing when the collection schema refuses the data', async () => {
    await expect(service.create(scope, 'k', body('k', { bad: 1 }))).rejects.toBeInstanceOf(SchemaValidationException);
    expect(repository.rows.size).toBe(0);
  });

  it('emits one read event per document read and one per list page, and hands every recorded delivery to the relay', async () => {
    repository.subscribers = 1;
    await service.create(scope, 'a', body('a', {}));
    await service.create(scope, 'b', body('b', {}));
    await service.get(scope, 'a', false);
    const page = await service.list(scope, LIST, { page: 1, perPage: 15, offset: 0 });
    expect(page).toMatchObject({ total: 2, rows: [{ key: 'a' }, { key: 'b' }] });
    await service.list({ ...scope, type: 'empty' }, LIST, { page: 1, perPage: 15, offset: 0 });
    expect(events.emitted).toEqual([
      { owner: scope.clientId, eventType: DocumentEvent.Read, count: 1 },
      { owner: scope.clientId, eventType: DocumentEvent.Read, count: 1 },
    ]);
    expect(events.recordedDeliveries).toBe(2);
  });

  describe('bulk', () => {
    it('creates and updates in input order', async () => {
      await service.create(scope, 'b', body('b', { n: 1 }));
      const written = await service.bulk(scope, [
        { key: 'c', data: {} },
        { key: 'b', data: { n: 2 } },
      ]);
      expect(written.map((d) => [d.key, d.version])).toEqual([
        ['c', 1],
        ['b', 2],
      ]);
    });

    it('refuses repeated and reserved keys, naming the item, and writes none of the items', async () => {
      const repeated = await service
        .bulk(scope, [
          { key: 'a', data: {} },
          { key: 'a', data: {} },
        ])
        .catch((e: ValidationFailedException) => e.body());
      expect(repeated).toMatchObject({ errors: { 'documents.1.key': ['The key "a" also appears at documents.0.'] } });
      await expect(
        service.bulk(scope, [
          { key: 'ok', data: {} },
          { key: 'schema', data: {} },
        ]),
      ).rejects.toBeInstanceOf(ValidationFailedException);
      await expect(
        service.bulk(scope, [
          { key: 'ok', data: {} },
          { key: 'no', data: { bad: true } },
        ]),
      ).rejects.toMatchObject({ status: 422 });
      expect(repository.rows.size).toBe(0);
    });

    it('refuses more items than BULK_MAX_ITEMS', async () => {
      const items = ['a', 'b', 'c', 'd'].map((key) => ({ key, data: {} }));
      const refusal = await service.bulk(scope, items).catch((e: ValidationFailedException) => e.body());
      expect(refusal).toMatchObject({ errors: { documents: ['The documents field must not have more than 3 items.'] } });
    });
  });
});
