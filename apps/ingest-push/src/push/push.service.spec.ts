import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { PushItemView, RejectedItem } from './push-batch.dto';
import { PushConfig } from './push.config';
import { IdempotencyKeyReusedException, NoValidPushException, PushBatchNotFoundException, TooManyPushesException } from './push.exception';
import type { PushLane } from './push-lanes.provider';
import type { AcceptedItem } from './push-batch.dto';
import type { NewBatch, PushRepository, StoredBatch } from './push.repository';
import { PushService } from './push.service';

type Public<T> = { [K in keyof T]: T[K] };
interface Item extends PushItemView {
  batchId: string;
}

/** PushRepository in memory: batches and their items, as the service reads and writes them. */
class FakePushRepository implements Pick<
  Public<PushRepository>,
  'insertBatch' | 'findByIdempotencyKey' | 'find' | 'acceptedItems' | 'countsByStatus' | 'batches' | 'items' | 'cancel' | 'outcomesByHour'
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
    });
    for (const { index, push } of batch.pushes) {
      this.itemRows.push({
        batchId: id,
        index,
        id: randomUUID(),
        status: 'scheduled',
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

  async cancel(batchId: string): Promise<number> {
    const scheduled = this.of(batchId).filter((i) => i.status === 'scheduled');
    for (const item of scheduled) item.status = 'cancelled';
    const batch = this.batchRows.find((b) => b.id === batchId)!;
    batch.cancelled_at ??= new Date().toISOString();
    return scheduled.length;
  }

  async outcomesByHour(): Promise<Array<{ hour: string; platform: 'android' | 'ios'; status: 'sent' | 'failed' | 'invalid_token'; n: number }>> {
    return [];
  }

  private of(batchId: string): Item[] {
    return this.itemRows.filter((i) => i.batchId === batchId).sort((a, b) => a.index - b.index);
  }
}

const item = (overrides: Record<string, unknown> = {}) => ({ nm_push: `device-${randomUUID()}`, nm_plataforma: 'Android', nm_mensagem: 'Hello', ...overrides });

function setup(settings: Partial<PushConfig> = {}) {
  const repository = new FakePushRepository();
  const kicks: string[] = [];
  const lane = (name: string) => ({ kick: () => kicks.push(name) }) as unknown as PushLane;
  const config = Object.assign(new PushConfig(), settings);
  const service = new PushService(repository as unknown as PushRepository, config, lane('android'), lane('ios'));
  return { service, repository, kicks, account: randomUUID() };
}

describe('PushService (in-memory repository)', () => {
  it('schedules the valid items, answers each item in request order, and wakes the lanes for pushes due now', async () => {
    const { service, repository, kicks, account } = setup();
    const answer = await service.submit(
      account,
      [item(), item({ nm_plataforma: 'Windows' }), item({ nm_plataforma: 'iOS', dt_envio: '2030-01-01', hr_envio: '09:00:00' })],
      undefined,
    );
    expect(answer).toMatchObject({ accepted: 2, rejected: 1 });
    expect(answer.items.map((i) => i.index)).toEqual([0, 1, 2]);
    expect(answer.items[1]).toEqual({ index: 1, errors: { nm_plataforma: ['nm_plataforma must be iOS or Android (any case).'] } });
    expect(answer.items[2]).toMatchObject({ status: 'scheduled', due_at: '2030-01-01T09:00:00.000Z' });
    expect(repository.itemRows).toHaveLength(2);
    expect(kicks.sort()).toEqual(['android', 'ios']);
  });

  it('does not wake the lanes when every push is scheduled for later', async () => {
    const { service, kicks, account } = setup();
    await service.submit(account, [item({ dt_envio: '2030-01-01', hr_envio: '09:00:00' })], undefined);
    expect(kicks).toEqual([]);
  });

  it('refuses a request without a valid item (422) or with too many (413), storing nothing', async () => {
    const { service, repository, account } = setup({ PUSH_MAX_ITEMS: 2 });
    const none = await service.submit(account, [item({ nm_push: '' })], undefined).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(NoValidPushException);
    expect((none as NoValidPushException).extras).toMatchObject({
      accepted: 0,
      rejected: 1,
      items: [{ index: 0, errors: { nm_push: ['nm_push must not be empty.'] } }],
    });
    await expect(service.submit(account, [item(), item(), item()], undefined)).rejects.toBeInstanceOf(TooManyPushesException);
    expect(repository.batchRows).toEqual([]);
  });

  it('answers a repeated Idempotency-Key with the first batch, and refuses it with another body', async () => {
    const { service, repository, account } = setup();
    const pushs = [item(), item({ nm_plataforma: 'x' })];
    const first = await service.submit(account, pushs, 'order-1');
    const again = await service.submit(account, structuredClone(pushs), 'order-1');
    expect(again).toEqual(first);
    expect(repository.batchRows).toHaveLength(1);
    await expect(service.submit(account, [item()], 'order-1')).rejects.toBeInstanceOf(IdempotencyKeyReusedException);
    // Keys are per account.
    const other = await service.submit(randomUUID(), pushs, 'order-1');
    expect(other.batch_id).not.toBe(first.batch_id);
  });

  it('previews the filled-in text of each item and stores nothing', () => {
    const { service, repository } = setup();
    const preview = service.preview([
      item({ nm_titulo: 'Hi {{nome}}', nm_mensagem: 'Use {{cupom}}', campos: 'nome,cupom', valor: 'Ana,BF10' }),
      item({ nm_mensagem: 'Hi {{x}}' }),
    ]);
    expect(preview).toMatchObject({ dry_run: true, accepted: 1, rejected: 1 });
    expect(preview.items[0]).toMatchObject({ index: 0, platform: 'android', title: 'Hi Ana', body: 'Use BF10' });
    expect((preview.items[1] as RejectedItem).errors).toEqual({ nm_mensagem: ['No value for {{x}}.'] });
    expect(repository.batchRows).toEqual([]);
  });

  it('lists batches with every status counted, pages their items, and cancels what is still scheduled', async () => {
    const { service, account } = setup();
    const { batch_id } = await service.submit(account, [item(), item(), item()], undefined);
    const { rows, total } = await service.batches(account, { page: 1, perPage: 15, offset: 0 });
    expect(total).toBe(1);
    expect(rows[0]).toMatchObject({ batch_id, accepted: 3, counts: { scheduled: 3, sending: 0, sent: 0, failed: 0, invalid_token: 0, cancelled: 0 } });
    const page = await service.items(account, batch_id, { page: 2, perPage: 2, offset: 2 });
    expect(page.rows.map((r) => r.index)).toEqual([2]);
    const cancelled = await service.cancel(account, batch_id);
    expect(cancelled).toMatchObject({ cancelled_now: 3, counts: { scheduled: 0, cancelled: 3 }, cancelled_at: expect.any(String) });
    expect((await service.cancel(account, batch_id)).cancelled_now).toBe(0);
  });

  it("answers 404 for another account's batch and for an id that is not a UUID", async () => {
    const { service, account } = setup();
    const { batch_id } = await service.submit(account, [item()], undefined);
    await expect(service.summary(randomUUID(), batch_id)).rejects.toBeInstanceOf(PushBatchNotFoundException);
    await expect(service.summary(account, 'not-a-uuid')).rejects.toBeInstanceOf(PushBatchNotFoundException);
  });

  it('counts finished pushes per hour of the window, every hour present', async () => {
    const { service, account } = setup();
    const stats = await service.stats(account, { window: '7d' });
    expect(stats.window).toBe('7d');
    expect(stats.data).toHaveLength(168);
    expect(stats.data[0]).toEqual({
      hour: stats.since,
      total: 0,
      by_status: { sent: 0, failed: 0, invalid: 0 },
      by_platform: { android: { sent: 0, failed: 0, invalid: 0 }, ios: { sent: 0, failed: 0, invalid: 0 } },
    });
  });
});
