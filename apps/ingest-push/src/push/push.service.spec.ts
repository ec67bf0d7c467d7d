import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { PushItemView, RejectedItem } from './push-batch.dto';
import { PushConfig } from './push.config';
import { IdempotencyKeyReusedException, NoValidPushException, PushBatchNotFoundException, TooManyPushesException } from './push.exception';
import type { PushLane } from './push-lanes.provider';
import type { AcceptedItem } from './push-batch.dto';
import type { NewBatch, PushRepository, StoredBatch } from './push.repository';
import { PushService } from './push.service';
import { OpenTokens } from './push-open-token';
import type { PushSettingsRepository, StoredSettings } from './push-settings.repository';
import type { AuditEntry, AuditLog } from '@app/audit';
import type { Sql, SqlRunner } from '@app/database';

/** Transactions in memory: the work runs on a connection that is never used (the fakes write in memory). */
const SQL = { transaction: async <T>(work: (tx: SqlRunner) => Promise<T>) => work({} as SqlRunner) } as unknown as Sql;

/** The audit log, in memory: what was recorded. */
const ACTOR = { credentialId: 'push:t1', credentialName: 'app', ip: '203.0.113.9' };
function fakeAudit(): { audit: AuditLog; entries: AuditEntry[] } {
  const entries: AuditEntry[] = [];
  return { entries, audit: { record: async (_tx: SqlRunner, _actor: unknown, entry: AuditEntry) => void entries.push(entry) } as unknown as AuditLog };
}

type Public<T> = { [K in keyof T]: T[K] };
interface Item extends PushItemView {
  batchId: string;
}

/** PushRepository in memory: batches and their items, as the service reads and writes them. */
class FakePushRepository implements Pick<
  Public<PushRepository>,
  'insertBatch' | 'findByIdempotencyKey' | 'find' | 'acceptedItems' | 'countsByStatus' | 'batches' | 'items' | 'cancel' | 'outcomesByHour' | 'opensByHour'
> {
  readonly batchRows: Array<StoredBatch & { accountId: string; key: string | null }> = [];
  readonly itemRows: Item[] = [];

  async insertBatch(batch: NewBatch): Promise<{ id: string; items: AcceptedItem[] } | null> {
    if (batch.idempotencyKey !== null && this.batchRows.some((b) => b.accountId === batch.accountId && b.key === batch.idempotencyKey)) return null;
    const id = randomUUID();
    const created_at = new Date().toISOString();
    this.batchRows.unshift({
      id,
      accountId: batch.accountId,
      key: batch.idempotencyKey,
      request_hash: batch.requestHash,
      accepted: batch.pushes.length,
      rejected: batch.rejections.length,
      rejections: batch.rejections,
      created_at,
      cancelled_at: null,
      throttle_per_minute: batch.throttle,
      expected_finish_at: batch.expectedFinish?.toISOString() ?? null,
    });
    for (const { index, push, status } of batch.pushes) {
      this.itemRows.push({
        batchId: id,
        index,
        id: randomUUID(),
        status,
        platform: push.platform,
        nm_push: push.device,
        title: push.title,
        body: push.body,
        url_scheme: push.urlScheme,
        due_at: push.dueAt.toISOString(),
        attempts: 0,
        sent_at: null,
        provider_id: null,
        error: null,
      });
    }
    return { id, items: await this.acceptedItems(id) };
  }

  async findByIdempotencyKey(accountId: string, key: string): Promise<StoredBatch | null> {
    return this.batchRows.find((b) => b.accountId === accountId && b.key === key) ?? null;
  }

  async find(accountId: string, id: string): Promise<StoredBatch | null> {
    return this.batchRows.find((b) => b.accountId === accountId && b.id === id) ?? null;
  }

  async acceptedItems(batchId: string): Promise<AcceptedItem[]> {
    return this.of(batchId).map(({ index, id, status, due_at }) => ({ index, id, status, due_at }));
  }

  async countsByStatus(batchId: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const item of this.of(batchId)) counts[item.status] = (counts[item.status] ?? 0) + 1;
    return counts;
  }

  async batches(accountId: string, limit: number, offset: number) {
    const mine = this.batchRows.filter((b) => b.accountId === accountId);
    const rows = await Promise.all(mine.slice(offset, offset + limit).map(async (b) => ({ ...b, counts: await this.countsByStatus(b.id) })));
    return { rows, total: mine.length };
  }

  async items(batchId: string, limit: number, offset: number): Promise<{ rows: PushItemView[]; total: number }> {
    const all = this.of(batchId).map(({ batchId: _, ...item }) => item);
    return { rows: all.slice(offset, offset + limit), total: all.length };
  }

  async cancel(_tx: SqlRunner, batchId: string): Promise<number> {
    const scheduled = this.of(batchId).filter((i) => i.status === 'scheduled');
    for (const item of scheduled) item.status = 'cancelled';
    const batch = this.batchRows.find((b) => b.id === batchId)!;
    batch.cancelled_at ??= new Date().toISOString();
    return scheduled.length;
  }

  async opensByHour(): Promise<Array<{ hour: string; n: number }>> {
    return [];
  }

  async outcomesByHour(): Promise<Array<{ hour: string; platform: 'android' | 'ios'; status: 'sent' | 'failed' | 'invalid_token'; n: number }>> {
    return [];
  }

  private of(batchId: string): Item[] {
    return this.itemRows.filter((i) => i.batchId === batchId).sort((a, b) => a.index - b.index);
  }
}

const item = (overrides: Record<string, unknown> = {}) => ({ nm_push: `device-${randomUUID()}`, nm_plataforma: 'Android', nm_mensagem: 'Hello', ...overrides });

/** PushSettingsRepository in memory. */
class FakeSettingsRepository implements Pick<PushSettingsRepository, 'find'> {
  readonly rows = new Map<string, StoredSettings>();
  async find(accountId: string): Promise<StoredSettings | null> {
    return this.rows.get(accountId) ?? null;
  }
  set(accountId: string, settings: Omit<StoredSettings, 'updated_at'>): void {
    this.rows.set(accountId, { ...settings, updated_at: new Date().toISOString() });
  }
}

function setup(settings: Partial<PushConfig> = {}) {
  const repository = new FakePushRepository();
  const stored = new FakeSettingsRepository();
  const kicks: string[] = [];
  const lane = (name: string) => ({ kick: () => kicks.push(name) }) as unknown as PushLane;
  const config = Object.assign(new PushConfig(), settings);
  const { audit, entries } = fakeAudit();
  const service = new PushService(
    repository as unknown as PushRepository,
    stored as unknown as PushSettingsRepository,
    config,
    new OpenTokens('k'.repeat(32)),
    lane('android'),
    lane('ios'),
    lane('web'),
    SQL,
    audit,
  );
  return { service, repository, stored, kicks, account: randomUUID(), entries };
}

describe('PushService (in-memory repository)', () => {
  it('schedules the valid items, answers each item in request order, and wakes the lanes for pushes due now', async () => {
    const { service, repository, kicks, account } = setup();
    const answer = await service.submit(
      account,
      { pushs: [item(), item({ nm_plataforma: 'Windows' }), item({ nm_plataforma: 'iOS', dt_envio: '2030-01-01', hr_envio: '09:00:00' })] },
      undefined,
    );
    expect(answer).toMatchObject({ accepted: 2, rejected: 1 });
    expect(answer.items.map((i) => i.index)).toEqual([0, 1, 2]);
    expect(answer.items[1]).toEqual({ index: 1, errors: { nm_plataforma: ['nm_plataforma must be iOS, Android or Web (any case).'] } });
    expect(answer.items[2]).toMatchObject({ status: 'scheduled', due_at: '2030-01-01T09:00:00.000Z' });
    expect(repository.itemRows).toHaveLength(2);
    expect(kicks.sort()).toEqual(['android', 'ios', 'web']);
  });

  it('does not wake the lanes when every push is scheduled for later', async () => {
    const { service, kicks, account } = setup();
    await service.submit(account, { pushs: [item({ dt_envio: '2030-01-01', hr_envio: '09:00:00' })] }, undefined);
    expect(kicks).toEqual([]);
  });

  it('refuses a request without a valid item (422) or with too many (413), storing nothing', async () => {
    const { service, repository, account } = setup({ PUSH_MAX_ITEMS: 2 });
    const none = await service.submit(account, { pushs: [item({ nm_push: '' })] }, undefined).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(NoValidPushException);
    expect((none as NoValidPushException).extras).toMatchObject({
      accepted: 0,
      rejected: 1,
      items: [{ index: 0, errors: { nm_push: ['nm_push must not be empty.'] } }],
    });
    await expect(service.submit(account, { pushs: [item(), item(), item()] }, undefined)).rejects.toBeInstanceOf(TooManyPushesException);
    expect(repository.batchRows).toEqual([]);
  });

  it('answers a repeated Idempotency-Key with the first batch, and refuses it with another body', async () => {
    const { service, repository, account } = setup();
    const pushs = [item(), item({ nm_plataforma: 'x' })];
    const first = await service.submit(account, { pushs }, 'order-1');
    const again = await service.submit(account, { pushs: structuredClone(pushs) }, 'order-1');
    expect(again).toEqual(first);
    expect(repository.batchRows).toHaveLength(1);
    await expect(service.submit(account, { pushs: [item()] }, 'order-1')).rejects.toBeInstanceOf(IdempotencyKeyReusedException);
    // Keys are per account.
    const other = await service.submit(randomUUID(), { pushs }, 'order-1');
    expect(other.batch_id).not.toBe(first.batch_id);
  });

  it('previews the filled-in text of each item and stores nothing', async () => {
    const { service, repository, account } = setup();
    const preview = await service.preview(account, {
      pushs: [item({ nm_titulo: 'Hi {{nome}}', nm_mensagem: 'Use {{cupom}}', campos: 'nome,cupom', valor: 'Ana,BF10' }), item({ nm_mensagem: 'Hi {{x}}' })],
    });
    expect(preview).toMatchObject({ dry_run: true, accepted: 1, rejected: 1 });
    expect(preview.items[0]).toMatchObject({ index: 0, platform: 'android', title: 'Hi Ana', body: 'Use BF10' });
    expect((preview.items[1] as RejectedItem).errors).toEqual({ nm_mensagem: ['No value for {{x}}.'] });
    expect(repository.batchRows).toEqual([]);
  });

  it('lists batches with every status counted, pages their items, and cancels what is still scheduled', async () => {
    const { service, account, entries } = setup();
    const { batch_id } = await service.submit(account, { pushs: [item(), item(), item()] }, undefined);
    const { rows, total } = await service.batches(account, { page: 1, perPage: 15, offset: 0 });
    expect(total).toBe(1);
    expect(rows[0]).toMatchObject({ batch_id, accepted: 3, counts: { scheduled: 3, sending: 0, sent: 0, failed: 0, invalid_token: 0, cancelled: 0 } });
    const page = await service.items(account, batch_id, { page: 2, perPage: 2, offset: 2 });
    expect(page.rows.map((r) => r.index)).toEqual([2]);
    const cancelled = await service.cancel(account, batch_id, ACTOR);
    expect(cancelled).toMatchObject({ cancelled_now: 3, counts: { scheduled: 0, cancelled: 3 }, cancelled_at: expect.any(String) });
    expect((await service.cancel(account, batch_id, ACTOR)).cancelled_now).toBe(0);
    expect(entries.map((e) => [e.action, e.tenantId, e.targetId, e.after?.cancelled_now])).toEqual([
      ['push_batch.cancelled', account, batch_id, 3],
      ['push_batch.cancelled', account, batch_id, 0],
    ]);
  });

  it("answers 404 for another account's batch and for an id that is not a UUID", async () => {
    const { service, account } = setup();
    const { batch_id } = await service.submit(account, { pushs: [item()] }, undefined);
    await expect(service.summary(randomUUID(), batch_id)).rejects.toBeInstanceOf(PushBatchNotFoundException);
    await expect(service.summary(account, 'not-a-uuid')).rejects.toBeInstanceOf(PushBatchNotFoundException);
  });

  it('counts finished pushes per hour of the window, every hour present', async () => {
    const { service, account } = setup();
    const stats = await service.stats(account, { window: '7d' });
    expect(stats.window).toBe('7d');
    expect(stats.data).toHaveLength(168);
    expect(stats).toMatchObject({ sent: 0, opened: 0, open_rate: null });
    expect(stats.data[0]).toEqual({
      hour: stats.since,
      opened: 0,
      total: 0,
      by_status: { sent: 0, failed: 0, invalid: 0 },
      by_platform: { android: { sent: 0, failed: 0, invalid: 0 }, ios: { sent: 0, failed: 0, invalid: 0 }, web: { sent: 0, failed: 0, invalid: 0 } },
    });
  });

  // 24 zones a whole hour apart or more (and two with half hours), as a national and international base spans.
  const ZONES = [
    'Pacific/Pago_Pago',
    'Pacific/Honolulu',
    'America/Anchorage',
    'America/Los_Angeles',
    'America/Denver',
    'America/Chicago',
    'America/New_York',
    'America/Sao_Paulo',
    'America/Noronha',
    'Atlantic/Azores',
    'UTC',
    'Europe/Berlin',
    'Europe/Athens',
    'Europe/Moscow',
    'Asia/Dubai',
    'Asia/Karachi',
    'Asia/Kolkata',
    'Asia/Dhaka',
    'Asia/Bangkok',
    'Asia/Shanghai',
    'Asia/Tokyo',
    'Australia/Brisbane',
    'Pacific/Noumea',
    'Pacific/Auckland',
  ];
  const localClock = (zone: string, at: string) =>
    new Intl.DateTimeFormat('en-GB', { timeZone: zone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(new Date(at));

  it('delivery "local": each item due at the batch hr_envio on its own zone\'s clock, the next such time within a day', async () => {
    const { service, account } = setup();
    const pushs = Array.from({ length: 2400 }, (_, i) => item({ timezone: ZONES[i % ZONES.length] }));
    const before = Date.now();
    const answer = await service.submit(account, { pushs, delivery: 'local', hr_envio: '09:00:00' }, undefined);
    expect(answer.accepted).toBe(2400);
    const dues = new Set<string>();
    for (const accepted of answer.items as AcceptedItem[]) {
      const zone = ZONES[accepted.index % ZONES.length];
      expect(localClock(zone, accepted.due_at)).toBe('09:00:00');
      const at = Date.parse(accepted.due_at);
      expect(at).toBeGreaterThanOrEqual(before - 1000);
      expect(at).toBeLessThan(before + 86_400_000);
      dues.add(accepted.due_at);
    }
    expect(dues.size).toBeGreaterThanOrEqual(20); // distinct instants, one per offset
  });

  it('delivery "local" with a date: that day at 09:00 in every zone; an item timezone reads its own dt_envio/hr_envio', async () => {
    const { service, account } = setup({ PUSH_TIMEZONE: 'UTC' });
    const answer = await service.preview(account, {
      pushs: [
        item({ timezone: 'America/Sao_Paulo' }),
        item({ timezone: 'Asia/Tokyo' }),
        item({ timezone: 'Mars/Base' }),
        item({}),
        item({ timezone: 'UTC', hr_envio: '10:00:00' }),
      ],
      delivery: 'local',
      hr_envio: '09:00:00',
      dt_envio: '2030-03-10',
    });
    expect(answer.items.map((i) => ('due_at' in i ? i.due_at : Object.keys(i.errors)))).toEqual([
      '2030-03-10T12:00:00.000000Z',
      '2030-03-10T00:00:00.000000Z',
      ['timezone'],
      ['timezone'],
      ['dt_envio', 'hr_envio'],
    ]);
    const fixed = await service.preview(account, { pushs: [item({ timezone: 'Europe/Berlin', dt_envio: '2030-07-01', hr_envio: '09:00:00' })] });
    expect(fixed.items[0]).toMatchObject({ due_at: '2030-07-01T07:00:00.000000Z' });
  });

  it('refuses batch hr_envio without delivery "local", and delivery "local" without hr_envio (422)', async () => {
    const { service, account } = setup();
    await expect(service.submit(account, { pushs: [item()], hr_envio: '09:00:00' }, undefined)).rejects.toMatchObject({ status: 422 });
    await expect(service.submit(account, { pushs: [item()], delivery: 'local' }, undefined)).rejects.toMatchObject({ status: 422 });
  });

  it('quiet hours 22:00–08:00: a push due at 23:00 local is held to 08:00 local, or is quiet with quiet_hours "drop"', async () => {
    const { service, stored, account } = setup();
    stored.set(account, { cap_max_pushes: null, cap_window_hours: null, quiet_start: '22:00', quiet_end: '08:00' });
    const pushs = [
      item({ timezone: 'America/Sao_Paulo', dt_envio: '2030-03-10', hr_envio: '23:00:00' }),
      item({ timezone: 'Asia/Tokyo', dt_envio: '2030-03-10', hr_envio: '03:00:00' }),
      item({ timezone: 'Asia/Tokyo', dt_envio: '2030-03-10', hr_envio: '12:00:00' }),
    ];
    const held = await service.submit(account, { pushs }, undefined);
    expect(held.items.map((i) => (i as AcceptedItem).due_at)).toEqual(['2030-03-11T11:00:00.000Z', '2030-03-09T23:00:00.000Z', '2030-03-10T03:00:00.000Z']);
    const dropped = await service.submit(account, { pushs, quiet_hours: 'drop' }, undefined);
    expect(dropped.items.map((i) => (i as AcceptedItem).status)).toEqual(['quiet', 'quiet', 'scheduled']);
    expect((await service.summary(account, dropped.batch_id)).counts).toMatchObject({ quiet: 2, scheduled: 1 });
  });

  it('shows the throttle and the expected finish: 600 pushes due now at 6,000 a minute end about 6 s later', async () => {
    const { service, account } = setup({ PUSH_DEFAULT_THROTTLE_PER_MINUTE: 100 });
    const before = Date.now();
    const { batch_id } = await service.submit(account, { pushs: Array.from({ length: 600 }, () => item()), throttle_per_minute: 6000 }, undefined);
    const summary = await service.summary(account, batch_id);
    expect(summary.throttle_per_minute).toBe(6000);
    const finish = Date.parse(summary.expected_finish_at!) - before;
    expect(finish).toBeGreaterThanOrEqual(5990);
    expect(finish).toBeLessThan(7000);
    const byDefault = await service.submit(account, { pushs: [item(), item()] }, undefined);
    expect((await service.summary(account, byDefault.batch_id)).throttle_per_minute).toBe(100);
  });
});
