import { audited, AuditLog, type AuditActor } from '@app/audit';
import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { ValidationFailedException } from '@app/errors';
import { setRequestAttributes } from '@app/observability';
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
import {
  BadOpenTokenException,
  IdempotencyKeyReusedException,
  NoValidPushException,
  PushBatchNotFoundException,
  PushNotFoundException,
  PushNotSentException,
  TooManyPushesException,
} from './push.exception';
import { OpenTokens } from './push-open-token';
import type { PushOpened } from './push-open.dto';
import { PushConfig } from './push.config';
import { PUSH_STATUSES } from './push-item.entity';
import { checkPushItem, type LocalDelivery, type ValidPush } from './push-item.validator';
import { isRealDate, quietUntil, type QuietHours } from './push-due-time';
import type { BulkPushDto } from './push.dto';
import { PushSettingsRepository, type StoredSettings } from './push-settings.repository';
import { throttleInterval } from './push-limits.service';
import type { PushLane } from './push-lanes.provider';
import { PLATFORMS, type Platform } from './push-payload';
import { PUSH_QUEUES } from './push-queue';
import { PushRepository, type StoredBatch } from './push.repository';

/** A valid item, due when its push says (quiet hours applied), `quiet` when they dropped it. */
export interface PlannedPush {
  index: number;
  push: ValidPush;
  status: 'scheduled' | 'quiet';
}

interface BatchPlan {
  pushes: PlannedPush[];
  rejections: RejectedItem[];
  throttle: number | null;
  expectedFinish: Date | null;
}

function quietHoursOf(settings: StoredSettings | null): QuietHours | null {
  return settings?.quiet_start && settings.quiet_end ? { start: settings.quiet_start, end: settings.quiet_end } : null;
}

/**
 * When the last push is expected out: each one at its due time, or one throttle interval after the
 * one before when that is later (as the limiter spreads them); never before now.
 */
export function expectedFinish(pushes: PlannedPush[], throttle: number | null, now = Date.now()): Date | null {
  const due = pushes.filter((p) => p.status === 'scheduled').map((p) => Math.max(now, p.push.dueAt.getTime()));
  if (due.length === 0) return null;
  due.sort((a, b) => a - b);
  if (throttle === null) return new Date(due[due.length - 1]);
  const interval = throttleInterval(throttle);
  let at = -Infinity;
  for (const d of due) at = Math.max(d, at + interval);
  return new Date(Math.ceil(at));
}

const OUTCOME = { sent: 'sent', failed: 'failed', invalid_token: 'invalid' } as const;
const noOutcomes = (): PushOutcomes => ({ sent: 0, failed: 0, invalid: 0 });

@Injectable()
export class PushService {
  constructor(
    private readonly repository: PushRepository,
    private readonly settings: PushSettingsRepository,
    private readonly config: PushConfig,
    private readonly openTokens: OpenTokens,
    @InjectLane(PUSH_QUEUES.android) private readonly android: PushLane,
    @InjectLane(PUSH_QUEUES.ios) private readonly ios: PushLane,
    @InjectLane(PUSH_QUEUES.web) private readonly web: PushLane,
    private readonly sql: Sql,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Checks every item, records the valid ones with their due times in one transaction and
   * answers item by item. With an Idempotency-Key, a repeated request gets the first answer.
   */
  async submit(accountId: string, request: BulkPushDto, idempotencyKey: string | undefined): Promise<BulkPushResult> {
    const local = this.checkRequest(request);
    const key = idempotencyKey ?? null;
    // Only the items when no batch option is given: the hash of a request that has none is what it always was.
    const { pushs, ...options } = request;
    const hashed = Object.values(options).some((v) => v !== undefined) ? { pushs, ...options } : pushs;
    const requestHash = key === null ? null : createHash('sha256').update(JSON.stringify(hashed)).digest();
    if (key !== null) {
      const earlier = await this.repository.findByIdempotencyKey(accountId, key);
      if (earlier) return this.replay(earlier, requestHash!);
    }

    const { pushes, rejections, throttle, expectedFinish } = await this.plan(accountId, request, local);
    const batch = await this.repository.insertBatch({ accountId, idempotencyKey: key, requestHash, pushes, rejections, throttle, expectedFinish });
    if (!batch) {
      // A concurrent request with the same key committed first.
      return this.replay((await this.repository.findByIdempotencyKey(accountId, key!))!, requestHash!);
    }
    setRequestAttributes(() => ({ 'app.batch.id': batch.id, 'app.rows.accepted': pushes.length, 'app.rows.rejected': rejections.length }));
    const now = Date.now();
    if (pushes.some((p) => p.push.dueAt.getTime() <= now)) for (const lane of [this.android, this.ios, this.web]) lane.kick();
    return { batch_id: batch.id, accepted: pushes.length, rejected: rejections.length, items: merge(batch.items, rejections) };
  }

  /**
   * The same checks as `submit`, answering what each valid item would send (its text with the
   * variables filled in, its device and due time); nothing is stored, queued or sent, and an
   * Idempotency-Key (checked for form by the decorator) stays free for a later real request.
   */
  async preview(accountId: string, request: BulkPushDto): Promise<BulkPushPreview> {
    const local = this.checkRequest(request);
    const { pushes, rejections } = await this.plan(accountId, request, local);
    const previews: PushPreview[] = pushes.map(({ index, push, status }) => ({
      index,
      status,
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

  /** The request's own rules (item count, batch options); returns the local delivery, if asked for. */
  private checkRequest(request: BulkPushDto): LocalDelivery | undefined {
    const { pushs } = request;
    if (pushs.length === 0) throw ValidationFailedException.of('pushs', 'pushs must hold at least one push.');
    if (pushs.length > this.config.PUSH_MAX_ITEMS) throw new TooManyPushesException(this.config.PUSH_MAX_ITEMS, pushs.length);
    if (request.delivery !== 'local') {
      for (const field of ['hr_envio', 'dt_envio'] as const) {
        if (request[field] !== undefined) throw ValidationFailedException.of(field, `A batch ${field} goes with delivery "local"; give it per item otherwise.`);
      }
      return undefined;
    }
    if (request.hr_envio === undefined) throw ValidationFailedException.of('hr_envio', 'hr_envio is required with delivery "local".');
    if (request.dt_envio !== undefined && !isRealDate(request.dt_envio))
      throw ValidationFailedException.of('dt_envio', 'dt_envio must be a real date YYYY-MM-DD.');
    return { time: request.hr_envio, date: request.dt_envio ?? null, dueByZone: new Map() };
  }

  /**
   * Each item checked and filled in, then the account's quiet hours applied (held to their end, or
   * `quiet`); refuses the request when no item is valid. Also the batch's throttle and expected finish.
   */
  private async plan(accountId: string, request: BulkPushDto, local: LocalDelivery | undefined): Promise<BatchPlan> {
    const pushes: PlannedPush[] = [];
    const rejections: RejectedItem[] = [];
    request.pushs.forEach((raw, index) => {
      const check = checkPushItem(raw, this.config.PUSH_TIMEZONE, local);
      if (check.ok) pushes.push({ index, push: check.push, status: 'scheduled' });
      else rejections.push({ index, errors: check.errors });
    });
    if (pushes.length === 0) throw new NoValidPushException(rejections);
    const quiet = quietHoursOf(await this.settings.find(accountId));
    if (quiet) {
      const drop = request.quiet_hours === 'drop';
      for (const planned of pushes) {
        const until = quietUntil(planned.push.dueAt.getTime(), planned.push.timeZone, quiet);
        if (until === null) continue;
        if (drop) planned.status = 'quiet';
        else planned.push.dueAt = until;
      }
    }
    const throttle = request.throttle_per_minute ?? this.config.PUSH_DEFAULT_THROTTLE_PER_MINUTE ?? null;
    return { pushes, rejections, throttle, expectedFinish: expectedFinish(pushes, throttle) };
  }

  /** The account's batches, newest first, each with its items counted by status. */
  async batches(accountId: string, page: PageQuery): Promise<{ rows: BatchSummary[]; total: number }> {
    const { rows, total } = await this.repository.batches(accountId, page.perPage, page.offset);
    return { rows: rows.map((b) => summaryOf(b, b.counts)), total };
  }

  /** An open reported by the app: its token checked, counted once. */
  async opened(pushId: string, token: string): Promise<PushOpened> {
    if (!this.openTokens.verify(pushId, token)) throw new BadOpenTokenException();
    const row = await this.repository.recordOpen(pushId);
    if (!row) throw new PushNotFoundException();
    if (row.opened_at === null) throw new PushNotSentException(row.status);
    return { push_id: pushId, opened_at: row.opened_at, counted: row.counted };
  }

  async stats(accountId: string, query: HourlyWindowQueryDto): Promise<PushStats> {
    const window = hourlyWindow(query.window);
    const [rows, opens] = await Promise.all([this.repository.outcomesByHour(accountId, window.since), this.repository.opensByHour(accountId, window.since)]);
    const empty = () => ({
      opened: 0,
      total: 0,
      by_status: noOutcomes(),
      by_platform: Object.fromEntries(PLATFORMS.map((p) => [p, noOutcomes()])) as Record<Platform, PushOutcomes>,
    });
    type Row = (typeof rows)[number] | { hour: string; opened: number };
    const all: Row[] = [...rows, ...opens.map((o) => ({ hour: o.hour, opened: o.n }))];
    const data = fillHours(window, all, empty, (bucket, row) => {
      if ('opened' in row) {
        bucket.opened += row.opened;
        return;
      }
      const outcome = OUTCOME[row.status];
      bucket.total += row.n;
      bucket.by_status[outcome] += row.n;
      bucket.by_platform[row.platform][outcome] += row.n;
    });
    const sent = data.reduce((n, b) => n + b.by_status.sent, 0);
    const opened = data.reduce((n, b) => n + b.opened, 0);
    return { window: window.window, since: window.since, sent, opened, open_rate: rate(opened, sent), data };
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
  async cancel(accountId: string, batchId: string, actor: AuditActor): Promise<CancelledBatch> {
    const batch = await this.batch(accountId, batchId);
    const cancelled = await audited(this.sql, this.audit, actor, async (tx, record) => {
      const count = await this.repository.cancel(tx, batch.id);
      await record({
        tenantId: accountId,
        action: 'push_batch.cancelled',
        targetType: 'push_batch',
        targetId: batch.id,
        before: { cancelled_at: batch.cancelled_at },
        after: { cancelled_at: batch.cancelled_at ?? 'now', cancelled_now: count },
      });
      return count;
    });
    return { ...(await this.summary(accountId, batchId)), cancelled_now: cancelled };
  }

  private async batch(accountId: string, batchId: string): Promise<StoredBatch> {
    const batch = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(batchId) ? await this.repository.find(accountId, batchId) : null;
    if (!batch) throw new PushBatchNotFoundException();
    return batch;
  }

  private async summarize(batch: StoredBatch): Promise<BatchSummary> {
    return summaryOf(batch, await this.repository.countsByStatus(batch.id));
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

/** A batch's summary from its row and its counts (by status, and `opened`). */
function summaryOf(batch: Omit<StoredBatch, 'request_hash' | 'rejections'>, found: Record<string, number>): BatchSummary {
  const counts = allCounts(found);
  const opened = found.opened ?? 0;
  return {
    batch_id: batch.id,
    created_at: batch.created_at,
    cancelled_at: batch.cancelled_at,
    accepted: batch.accepted,
    rejected: batch.rejected,
    counts,
    throttle_per_minute: batch.throttle_per_minute,
    expected_finish_at: batch.expected_finish_at,
    opened,
    open_rate: rate(opened, counts.sent),
  };
}

/** opened / sent to four decimals; null while nothing is sent. */
function rate(opened: number, sent: number): number | null {
  return sent > 0 ? Math.round((opened / sent) * 10_000) / 10_000 : null;
}

/** Every status, 0 when the batch has no item in it. */
function allCounts(found: Record<string, number>): PushCounts {
  return Object.fromEntries(PUSH_STATUSES.map((s) => [s, found[s] ?? 0])) as unknown as PushCounts;
}
