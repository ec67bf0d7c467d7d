import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql } from '@app/database';
import { within } from '../documents/client-overview.repository';
import type { DocumentFilter } from '../documents/document-query.dto';
import { filterConditions } from '../documents/document-filter.sql';
import type { ScopeArea } from '../tokens/token-scopes';

/** A change as the feed reads it; `document` only when asked for. */
export interface ChangeRow {
  cursor: string;
  kind: string;
  environment: string;
  context: string;
  type: string;
  key: string;
  document_id: string;
  version: number;
  occurred_at: string;
  document?: Record<string, unknown>;
}

/** What one reader may see, and which of it it asked for. */
export interface ChangeSelection {
  clientId: string;
  areas: 'all' | ScopeArea[];
  /** One to three path segments: environment, context, type. */
  collection: string[];
  filters: DocumentFilter[];
  includeDocs: boolean;
}

/** One read of the feed, in one snapshot. */
export interface ChangeRead {
  rows: ChangeRow[];
  /** The last cursor given out (to anyone) when the read ran. */
  lastSeq: string;
  /** Cursors up to this one are gone (retention). */
  prunedThrough: string;
}

/** Cursors `from`..`to` given out in one batch (none when `to` < `from`), and the highest of each client. */
export interface Numbered {
  byClient: Map<string, string>;
  from: bigint;
  to: bigint;
}

/** How many pending changes one sequencer transaction numbers at most. */
export const SEQUENCE_BATCH = 5000;

const COLLECTION_COLUMNS = ['environment', 'context', 'type'];

/** The change log (`docstore.changes`) and its counter (`docstore.change_sequence`, one row). */
@Injectable()
export class ChangesRepository {
  constructor(private readonly db: Sql) {}

  /**
   * Gives cursors to the committed changes that have none, in the order they were written
   * (`id`), and answers the highest new cursor of each client. Sequencers take turns on the
   * counter row's lock; the numbering statement runs after the lock is held, so its snapshot
   * holds every change committed before. A change another transaction has not committed yet
   * is invisible here and gets a later, higher cursor once it commits: a reader past this
   * batch never misses it.
   */
  async sequence(): Promise<Numbered> {
    return this.db.transaction(async (tx) => {
      const counter = await tx.one<{ last_seq: string }>(`SELECT last_seq::text FROM docstore.change_sequence WHERE id = 1 FOR UPDATE`);
      const rows = await tx.rows<{ client_id: string; seq: string; n: number }>(
        `WITH todo AS (
           SELECT id, row_number() OVER (ORDER BY id) AS n FROM docstore.changes WHERE seq IS NULL ORDER BY id LIMIT $2
         ), numbered AS (
           UPDATE docstore.changes c SET seq = $1::bigint + todo.n FROM todo WHERE c.id = todo.id AND c.seq IS NULL RETURNING c.client_id, c.seq
         )
         SELECT client_id::text, max(seq)::text AS seq, count(*)::int AS n FROM numbered GROUP BY client_id`,
        [counter!.last_seq, SEQUENCE_BATCH],
      );
      const numbered = rows.reduce((sum, row) => sum + row.n, 0);
      if (numbered > 0) await tx.rows(`UPDATE docstore.change_sequence SET last_seq = last_seq + $1 WHERE id = 1`, [numbered]);
      const from = BigInt(counter!.last_seq) + 1n;
      return { byClient: new Map(rows.map((row) => [row.client_id, row.seq])), from, to: from + BigInt(numbered) - 1n };
    });
  }

  /** Whether some committed change still waits for its cursor (served by changes_pending_idx). */
  async hasPending(): Promise<boolean> {
    return (await this.db.one(`SELECT 1 FROM docstore.changes WHERE seq IS NULL LIMIT 1`)) !== null;
  }

  async lastSeq(): Promise<string> {
    return (await this.db.one<{ last_seq: string }>(`SELECT last_seq::text FROM docstore.change_sequence WHERE id = 1`))!.last_seq;
  }

  /**
   * The reader's changes after `since`, oldest first, at most `limit`, with the counter, all in one
   * statement (one snapshot): every cursor up to `lastSeq` is committed and visible to this read.
   */
  async read(selection: ChangeSelection, since: string, limit: number): Promise<ChangeRead> {
    const params: unknown[] = [selection.clientId, since, limit];
    const conditions = [
      within(selection.areas, 'environment', 'context', params),
      ...selection.collection.map((segment, i) => `${COLLECTION_COLUMNS[i]} = $${params.push(segment)}`),
      ...filterConditions(selection.filters, params),
    ];
    const document = selection.includeDocs ? `, document || jsonb_build_object('data', data) AS document` : '';
    const row = await this.db.one<ChangeRead>(
      `SELECT s.last_seq::text AS "lastSeq", s.pruned_through::text AS "prunedThrough",
              coalesce((SELECT json_agg(p ORDER BY p.seq) FROM (
                SELECT seq, seq::text AS cursor, kind, environment, context, type, key, document_id, version,
                       ${isoTimestamp('created_at', 'occurred_at')}${document}
                  FROM docstore.changes
                 WHERE client_id = $1 AND seq > $2::bigint AND seq IS NOT NULL AND ${conditions.join(' AND ')}
                 ORDER BY seq LIMIT $3) p), '[]') AS rows
         FROM docstore.change_sequence s WHERE s.id = 1`,
      params,
    );
    return { ...row!, rows: row!.rows.map(({ seq: _seq, ...change }: ChangeRow & { seq?: number }) => change) };
  }

  /** Marks changes older than `days` as gone (the mark only moves forward); the Pruner deletes them. */
  async expire(days: number): Promise<void> {
    await this.db.rows(
      `UPDATE docstore.change_sequence SET pruned_through = greatest(pruned_through, coalesce(
         (SELECT max(seq) FROM docstore.changes WHERE seq IS NOT NULL AND created_at < now() - make_interval(days => $1)), 0))
       WHERE id = 1`,
      [days],
    );
  }

  /** The Pruner's condition: changes at or below the retention mark. */
  static readonly EXPIRED = `seq <= (SELECT pruned_through FROM docstore.change_sequence WHERE id = 1)`;
}
