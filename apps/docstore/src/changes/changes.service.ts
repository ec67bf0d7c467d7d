import { Injectable } from '@nestjs/common';
import { AccessDeniedException, ValidationFailedException } from '@app/errors';
import { isTrueWord } from '../documents/document-query.dto';
import { DocstoreScope } from '../tokens/docstore-scopes';
import type { DocstorePrincipal } from '../tokens/docstore-principal';
import { scopeAreas, type TokenScopes } from '../tokens/token-scopes';
import { ChangeNotifier } from './change-notifier.service';
import { ChangesCursorGoneException } from './changes.exception';
import { DEFAULT_LIMIT, DEFAULT_TIMEOUT_SECONDS, type ChangeDto, type ChangesPageDto, type ChangesQueryDto } from './changes.dto';
import { ChangesRepository, type ChangeRead, type ChangeRow, type ChangeSelection } from './changes.repository';

/** A reader's request, read: what it may and wants to see, from where, how many at a time. */
export interface Reader {
  selection: ChangeSelection;
  /** A cursor, `now`, or undefined (from the oldest kept change). */
  since: string | undefined;
  limit: number;
  /** The selection and limit as the key of shared reads, made at the first read (a rescope makes it again). */
  shareKey?: string;
}

/** A read of the repository, its rows made changes once for every reader sharing it. */
type SharedRead = ChangeRead & { changes: ChangeDto[] };

/** A page, and whether the read hit the limit (more may be waiting). */
export interface ReadPage {
  page: ChangesPageDto;
  full: boolean;
}

/**
 * The feed's rules. A reader needs `document:read`: from permissions it sees the whole client,
 * from document rules only their environments and contexts (checked again on each read, so a
 * re-scoped token's stream follows its new scopes).
 */
@Injectable()
export class ChangesService {
  private readonly inFlight = new Map<string, Promise<SharedRead>>();

  constructor(
    private readonly changes: ChangesRepository,
    private readonly notifier: ChangeNotifier,
  ) {}

  reader(principal: DocstorePrincipal, query: ChangesQueryDto, since = query.since): Reader {
    return {
      selection: {
        clientId: principal.ownerId,
        areas: readableAreas(principal.scopes),
        collection: query.collection ? query.collection.split('/') : [],
        filters: query.filters.filters,
        includeDocs: query.include_docs === undefined || query.include_docs === '' || isTrueWord(query.include_docs),
      },
      since,
      limit: query.limit ? Number(query.limit) : DEFAULT_LIMIT,
    };
  }

  /** Applies the token's current scopes to a reader (403 once it may read nothing). */
  rescope(reader: Reader, scopes: TokenScopes): void {
    reader.selection.areas = readableAreas(scopes);
    reader.shareKey = undefined;
  }

  /**
   * One page after the reader's cursor; the cursor moves to the page's `last_cursor`. 410 for a
   * cursor past retention, 422 for one the feed never gave out.
   */
  async read(reader: Reader): Promise<ReadPage> {
    const since = reader.since === undefined || reader.since === 'now' ? '0' : reader.since;
    const read = await this.readOnce(reader, since);
    if (reader.since === 'now') {
      reader.since = read.lastSeq;
      return { page: { changes: [], last_cursor: read.lastSeq }, full: false };
    }
    if (reader.since === undefined) {
      if (BigInt(read.prunedThrough) > 0n) return this.read({ ...reader, since: read.prunedThrough }).then((page) => this.moved(reader, page));
    } else {
      if (BigInt(reader.since) < BigInt(read.prunedThrough)) throw new ChangesCursorGoneException(read.prunedThrough);
      if (BigInt(reader.since) > BigInt(read.lastSeq))
        throw ValidationFailedException.of('since', 'This cursor is ahead of the feed: use one from an earlier answer.');
    }
    const full = read.rows.length === reader.limit;
    const last = full ? read.rows[read.rows.length - 1].cursor : maxCursor(since, read.lastSeq);
    reader.since = last;
    return { page: { changes: read.changes, last_cursor: last }, full };
  }

  /**
   * A long poll: the page after the cursor, or when it is empty, the first page that has changes
   * once the feed moves, or an empty one when `timeoutMs` runs out or `stop` fires.
   */
  async poll(reader: Reader, timeoutMs: number, stop: AbortSignal): Promise<ChangesPageDto> {
    const deadline = Date.now() + timeoutMs;
    let woken = false;
    let wake: (() => void) | null = null;
    const unlisten = this.notifier.listen(reader.selection.clientId, () => {
      woken = true;
      wake?.();
    });
    try {
      for (;;) {
        woken = false;
        const { page } = await this.read(reader);
        if (page.changes.length > 0 || stop.aborted) return page;
        const left = deadline - Date.now();
        if (left <= 0) return page;
        if (!woken) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, left);
            const done = () => {
              clearTimeout(timer);
              stop.removeEventListener('abort', done);
              wake = null;
              resolve();
            };
            wake = done;
            stop.addEventListener('abort', done);
          });
        }
        if (Date.now() >= deadline || stop.aborted) return (await this.read(reader)).page;
      }
    } finally {
      unlisten();
    }
  }

  /**
   * The repository's read, shared by readers asking the same thing at once: streams of one client with the
   * same scopes and filters wake together at the same cursor, and make one query instead of one each.
   */
  private readOnce(reader: Reader, since: string): Promise<SharedRead> {
    const key = `${this.shareKey(reader)}|${since}`;
    let read = this.inFlight.get(key);
    if (!read) {
      read = this.changes
        .read(reader.selection, since, reader.limit)
        .then((found) => ({ ...found, changes: found.rows.map(toChange) }))
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, read);
    }
    return read;
  }

  /** What the reader reads, whatever its cursor: readers with the same key at the same cursor get the same page. */
  shareKey(reader: Reader): string {
    return (reader.shareKey ??= JSON.stringify([reader.selection, reader.limit]));
  }

  private moved(reader: Reader, page: ReadPage): ReadPage {
    reader.since = page.page.last_cursor;
    return page;
  }
}

export const longPollTimeoutMs = (query: ChangesQueryDto): number => (query.timeout ? Number(query.timeout) : DEFAULT_TIMEOUT_SECONDS) * 1000;

function readableAreas(scopes: TokenScopes): ChangeSelection['areas'] {
  const areas = scopeAreas(scopes, DocstoreScope.DocumentRead);
  if (areas !== 'all' && areas.length === 0) throw new AccessDeniedException(`This token lacks the required scope: ${DocstoreScope.DocumentRead}.`);
  return areas;
}

function maxCursor(a: string, b: string): string {
  return BigInt(a) >= BigInt(b) ? a : b;
}

function toChange(row: ChangeRow): ChangeDto {
  const change: ChangeDto = {
    cursor: row.cursor,
    kind: row.kind,
    collection: `${row.environment}/${row.context}/${row.type}`,
    key: row.key,
    id: row.document_id,
    version: row.version,
    occurred_at: row.occurred_at,
  };
  if (row.document) change.document = row.document as unknown as ChangeDto['document'];
  return change;
}
