import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ValidationFailedException } from '@app/errors';
import { fillHours, hourlyWindow, type PageQuery } from '@app/pagination';
import { InjectLane } from '@app/queue';
import type { HourlyWindowQueryDto } from '../common/hourly-window-query.dto';
import type {
  AcceptedItem,
  BatchSummary,
  BulkPushPreview,
  BulkPushResult,
  CancelledBatch,
  PushCounts,
  PushItemView,
  PushPreview,
  RejectedItem,
} from './push-batch.dto';
import type { PushOutcomes, PushStats } from './push-stats.dto';
import { IdempotencyKeyReusedException, NoValidPushException, PushBatchNotFoundException, TooManyPushesException } from './push.exception';
import { PushConfig } from './push.config';
import { PUSH_STATUSES } from './push-item.entity';
import { checkPushItem, type ValidPush } from './push-item.validator';
import type { PushLane } from './push-lanes.provider';
import { PLATFORMS, type Platform } from './push-payload';
import { PUSH_QUEUES } from './push-queue';
import { PushRepository, type StoredBatch } from './push.repository';

const OUTCOME = { sent: 'sent', failed: 'failed', invalid_token: 'invalid' } as const;
const noOutcomes = (): PushOutcomes => ({ sent: 0, failed: 0, invalid: 0 });

@Injectable()
export class PushService {
  constructor(
    private readonly repository: PushRepository,
    private readonly config: PushConfig,
    @InjectLane(PUSH_QUEUES.android) private readonly android: PushLane,
    @InjectLane(PUSH_QUEUES.ios) private readonly ios: PushLane,
  ) {}

  /**
   * Checks every item, records the valid ones with their due times in one transaction and
   * answers item by item. With an Idempotency-Key, a repeated request gets the first answer.
   */
  async submit(accountId: string, pushs: unknown[], idempotencyKey: string | undefined): Promise<BulkPushResult> {
    this.checkRequest(pushs);
    const key = idempotencyKey ?? null;
    const requestHash = key === null ? null : createHash('sha256').update(JSON.stringify(pushs)).digest();
    if (key !== null) {
      const earlier = await this.repository.findByIdempotencyKey(accountId, key);
      if (earlier) return this.replay(earlier, requestHash!);
    }

    const { pushes, rejections } = this.checkItems(pushs);
    const batch = await this.repository.insertBatch({ accountId, idempotencyKey: key, requestHash, pushes, rejections });
    if (!batch) {
      // A concurrent request with the same key committed first.
      return this.replay((await this.repository.findByIdempotencyKey(accountId, key!))!, requestHash!);
    }
    const now = Date.now();
    if (pushes.some((p) => p.push.dueAt.getTime() <= now)) for (const lane of [this.android, this.ios]) lane.kick();
    return { batch_id: batch.id, accepted: pushes.length, rejected: rejections.length, items: merge(batch.items, rejections) };
  }

  /**
   * The same checks as `submit`, answering what each valid item would send (its text with the
   * variables filled in, its device and due time); nothing is stored, queued or sent, and an
   * Idempotency-Key (checked for form by the decorator) stays free for a later real request.
   */
  preview(pushs: unknown[]): BulkPushPreview {
    this.checkRequest(pushs);
    const { pushes, rejections } = this.checkItems(pushs);
    const previews: PushPreview[] = pushes.map(({ index, push }) => ({
      index,
      platform: push.platform,
      nm_push: push.device,
      title: push.title,
      body: push.body,
      url_scheme: push.urlScheme,
      // The stored form (microseconds), so a preview and the real answer compare equal.
      due_at: push.dueAt.toISOString().replace(/Z$/, '000Z'),
    }));
    const items: BulkPushPreview['items'] = [...previews, ...rejections].sort((a, b) => a.index - b.index);
    return { dry_run: true, accepted: pushes.length, rejected: rejections.length, items };
  }

  private checkRequest(pushs: unknown[]): void {
    if (pushs.length === 0) throw ValidationFailedException.of('pushs', 'pushs must hold at least one push.');
    if (pushs.length > this.config.PUSH_MAX_ITEMS) throw new TooManyPushesException(this.config.PUSH_MAX_ITEMS, pushs.length);
  }

  /** Each item checked and filled in; refuses the request when none is valid. */
  private checkItems(pushs: unknown[]): { pushes: Array<{ index: number; push: ValidPush }>; rejections: RejectedItem[] } {
    const pushes: Array<{ index: number; push: ValidPush }> = [];
    const rejections: RejectedItem[] = [];
    pushs.forEach((raw, index) => {
      const check = checkPushItem(raw, this.config.PUSH_TIMEZONE);
      if (check.ok) pushes.push({ index, push: check.push });
      else rejections.push({ index, errors: check.errors });
    });
    if (pushes.length === 0) throw new NoValidPushException(rejections);
    return { pushes, rejections };
  }

  /** The account's batches, newest first, each with its items counted by status. */
  async batches(accountId: string, page: PageQuery): Promise<{ rows: BatchSummary[]; total: number }> {
    const { rows, total } = await this.repository.batches(accountId, page.perPage, page.offset);
    return {
      rows: rows.map((b) => ({
        batch_id: b.id,
        created_at: b.created_at,
        cancelled_at: b.cancelled_at,
        accepted: b.accepted,
        rejected: b.rejected,
        counts: allCounts(b.counts),
      })),
      total,
    };
  }

  async stats(accountId: string, query: HourlyWindowQueryDto): Promise<PushStats> {
    const window = hourlyWindow(query.window);
    const rows = await this.repository.outcomesByHour(accountId, window.since);
    const empty = () => ({
      total: 0,
      by_status: noOutcomes(),
      by_platform: Object.fromEntries(PLATFORMS.map((p) => [p, noOutcomes()])) as Record<Platform, PushOutcomes>,
    });
    const data = fillHours(window, rows, empty, (bucket, row) => {
      const outcome = OUTCOME[row.status];
      bucket.total += row.n;
      bucket.by_status[outcome] += row.n;
      bucket.by_platform[row.platform][outcome] += row.n;
    });
    return { window: window.window, since: window.since, data };
  }

  async summary(accountId: string, batchId: string): Promise<BatchSummary> {
    return this.summarize(await this.batch(accountId, batchId));
  }

  async items(accountId: string, batchId: string, page: PageQuery): Promise<{ summary: BatchSummary; rows: PushItemView[]; total: number }> {
    const summary = await this.summary(accountId, batchId);
    const { rows, total } = await this.repository.items(batchId, page.perPage, page.offset);
    return { summary, rows, total };
  }

  /** Cancels every push of the batch not yet handed to a provider. */
  async cancel(accountId: string, batchId: string): Promise<CancelledBatch> {
    const batch = await this.batch(accountId, batchId);
    const cancelled = await this.repository.cancel(batch.id);
    return { ...(await this.summary(accountId, batchId)), cancelled_now: cancelled };
  }

  private async batch(accountId: string, batchId: string): Promise<StoredBatch> {
    const batch = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(batchId) ? await this.repository.find(accountId, batchId) : null;
    if (!batch) throw new PushBatchNotFoundException();
    return batch;
  }

  private async summarize(batch: StoredBatch): Promise<BatchSummary> {
    const counts = allCounts(await this.repository.countsByStatus(batch.id));
    return { batch_id: batch.id, created_at: batch.created_at, cancelled_at: batch.cancelled_at, accepted: batch.accepted, rejected: batch.rejected, counts };
  }

  private async replay(batch: StoredBatch, requestHash: Buffer): Promise<BulkPushResult> {
    if (!batch.request_hash || !batch.request_hash.equals(requestHash)) throw new IdempotencyKeyReusedException();
    const items = await this.repository.acceptedItems(batch.id);
    return { batch_id: batch.id, accepted: batch.accepted, rejected: batch.rejected, items: merge(items, batch.rejections) };
  }
}

/** Accepted and refused items back in request order. */
function merge(accepted: AcceptedItem[], rejected: RejectedItem[]): BulkPushResult['items'] {
  const all: BulkPushResult['items'] = [...accepted, ...rejected];
  return all.sort((a, b) => a.index - b.index);
}

/** Every status, 0 when the batch has no item in it. */
function allCounts(found: Record<string, number>): PushCounts {
  return Object.fromEntries(PUSH_STATUSES.map((s) => [s, found[s] ?? 0])) as unknown as PushCounts;
}
