import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { AppException } from '@app/errors';
import type { PhonesService } from '../accounts/phones.service';
import type { ConversationRules } from '../conversations/conversation-rules.service';
import { ServiceWindowClosedException } from '../conversations/conversation-refusals';
import type { CursorPaging } from '../common/cursor-page';
import type { NetworkConfig } from '../network/network.config';
import type { MessagesConfig } from './messages.config';
import { ResourceNotFoundException, ThroughputException } from '../errors/network-error.exception';
import type { ChatProvider, PhoneContext, SendMessage, SentMessage } from '../network/chat-provider';
import type { Claim, IdempotencyRepository } from './idempotency.repository';
import type { MessageFilter } from './message-query.dto';
import type { SendMessageBody } from './message.dto';
import type { MessageSummary, MessageView } from './message-answers.dto';
import type { MessagesRepository } from './messages.repository';
import { MessagesService } from './messages.service';
import type { ScheduledMessagesRepository, ScheduledRow } from './scheduled-messages.repository';
import { ScheduledMessagesService } from './scheduled-messages.service';
import type { ThroughputLimiter } from './throughput.limiter';

/** The fast layer: MessagesService on in-memory fakes of its repositories, provider and limiter (no PostgreSQL, no Redis). */

const phone: PhoneContext = { accountId: 'acc-1', phoneRef: 'ref-1', phone: '15550100001', phoneId: '1065', wabaId: 'w1', accessToken: null };
const sibling: PhoneContext = { ...phone, phoneRef: 'ref-2', phone: '15550100002', phoneId: '1066' };

interface Row extends MessageSummary {
  accountId: string;
  phoneRef: string;
}

class FakeMessages implements Pick<MessagesRepository, 'insert' | 'unknownMedia' | 'list' | 'statusBuckets' | 'find'> {
  readonly rows: Row[] = [];
  media = new Set<string>();
  private clock = Date.parse('2026-11-27T10:00:00Z');

  async insert(m: { id: string; phoneRef: string; to: string; waId: string; type: string }): Promise<boolean> {
    if (this.rows.some((r) => r.id === m.id)) return false;
    const at = new Date((this.clock += 1000)).toISOString().replace('Z', '000Z');
    this.rows.push({
      id: m.id,
      accountId: phone.accountId,
      phoneRef: m.phoneRef,
      phone_id: '',
      to: m.to,
      wa_id: m.waId,
      type: m.type,
      status: 'accepted',
      created_at: at,
      updated_at: at,
    });
    return true;
  }

  async unknownMedia(_: string, ids: string[]): Promise<string[]> {
    return ids.filter((id) => !this.media.has(id));
  }

  async list(phoneRef: string, filter: MessageFilter, limit: number, after: { at: string; id: string } | null): Promise<Omit<MessageSummary, 'phone_id'>[]> {
    return this.rows
      .filter((r) => r.phoneRef === phoneRef && (!filter.status || r.status === filter.status) && (!after || r.created_at < after.at))
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .slice(0, limit + 1)
      .map(({ accountId: _a, phoneRef: _p, phone_id: _i, ...row }) => row);
  }

  async statusBuckets(phoneRef: string): Promise<{ hour: string; status: string; n: number }[]> {
    const hour = `${new Date().toISOString().slice(0, 13)}:00:00Z`;
    const counts = new Map<string, number>();
    for (const r of this.rows.filter((row) => row.phoneRef === phoneRef)) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    return [...counts].map(([status, n]) => ({ hour, status, n }));
  }

  async find(accountId: string, id: string): Promise<MessageView | null> {
    const row = this.rows.find((r) => r.id === id && r.accountId === accountId);
    return row ? { ...row, statuses: [{ status: row.status, timestamp: row.created_at }] } : null;
  }
}

class FakeScheduled implements Pick<ScheduledMessagesRepository, 'insert' | 'find' | 'cancel'> {
  readonly rows: (ScheduledRow & { accountId: string; request: SendMessage })[] = [];

  async insert(row: { id: string; phoneRef: string; to: string; waId: string; request: SendMessage; sendAt: string }): Promise<void> {
    const at = new Date().toISOString();
    const phoneId = row.phoneRef === phone.phoneRef ? phone.phoneId : sibling.phoneId;
    this.rows.push({
      id: row.id,
      accountId: phone.accountId,
      phone_id: phoneId,
      to: row.to,
      wa_id: row.waId,
      type: row.request.type,
      state: 'scheduled',
      send_at: row.sendAt,
      message_id: null,
      error: null,
      created_at: at,
      updated_at: at,
      request: row.request,
    });
  }

  async find(accountId: string, id: string): Promise<ScheduledRow | null> {
    const row = this.rows.find((r) => r.id === id && r.accountId === accountId);
    if (!row) return null;
    const { accountId: _a, request: _r, ...view } = row;
    return view;
  }

  async cancel(accountId: string, id: string): Promise<boolean> {
    const row = this.rows.find((r) => r.id === id && r.accountId === accountId && r.state === 'scheduled');
    if (row) row.state = 'cancelled';
    return row !== undefined;
  }
}

class FakeIdempotency implements Pick<IdempotencyRepository, 'claim' | 'complete' | 'release'> {
  readonly keys = new Map<string, { hash: Buffer; response: unknown }>();

  async claim(phoneRef: string, key: string, hash: Buffer): Promise<Claim> {
    const found = this.keys.get(`${phoneRef}/${key}`);
    if (!found) {
      this.keys.set(`${phoneRef}/${key}`, { hash, response: null });
      return { kind: 'claimed' };
    }
    if (!found.hash.equals(hash)) return { kind: 'mismatch' };
    return found.response === null ? { kind: 'pending' } : { kind: 'done', response: found.response };
  }

  async complete(phoneRef: string, key: string, response: unknown): Promise<void> {
    this.keys.get(`${phoneRef}/${key}`)!.response = response;
  }

  async release(phoneRef: string, key: string): Promise<void> {
    if (this.keys.get(`${phoneRef}/${key}`)?.response === null) this.keys.delete(`${phoneRef}/${key}`);
  }
}

/** The network: answers each send with a new id (or `nextId` once), or fails with `failure`. */
class FakeProvider implements Pick<ChatProvider, 'send' | 'markRead' | 'messageStored'> {
  readonly sent: SendMessage[] = [];
  readonly read: string[] = [];
  readonly stored: string[] = [];
  nextId?: string;
  failure?: Error;

  async send(_: PhoneContext, message: SendMessage): Promise<SentMessage> {
    if (this.failure) throw this.failure;
    this.sent.push(message);
    const messageId = this.nextId ?? `wamid.${this.sent.length}`;
    this.nextId = undefined;
    return { messageId, waId: message.to.replace(/\D/g, '') };
  }

  async markRead(_: PhoneContext, messageId: string): Promise<void> {
    this.read.push(messageId);
  }

  messageStored(_: PhoneContext, message: SentMessage): void {
    this.stored.push(message.messageId);
  }
}

class FakeThroughput implements Pick<ThroughputLimiter, 'take'> {
  left = Infinity;

  async take(): Promise<void> {
    if (this.left-- <= 0) throw new ThroughputException(1, 1);
  }
}

/** The conversation rules over an in-memory set of contacts whose window is open (every contact unless `closed`). */
class FakeRules implements Pick<ConversationRules, 'check' | 'markedRead'> {
  closed = new Set<string>();
  read: string[] = [];

  async check(_phone: PhoneContext, message: SendMessage): Promise<void> {
    if (!message.template && this.closed.has(message.to)) throw new ServiceWindowClosedException();
  }

  async markedRead(_phone: PhoneContext, messageId: string): Promise<void> {
    this.read.push(messageId);
  }
}

class FakePhones implements Pick<PhonesService, 'select'> {
  async select(own: PhoneContext, phoneId: string | undefined): Promise<PhoneContext> {
    return phoneId === sibling.phoneId ? sibling : own;
  }
}

const text = (to = '15550102030', body = 'hello'): SendMessageBody => ({ messaging_product: 'whatsapp', to, type: 'text', text: { body } });
const paging = (after: string | null = null, limit = 2): CursorPaging => ({ limit, after, location: { path: '/api/Messages', query: new URLSearchParams() } });

/** The network error body's details of what `promise` throws. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; details: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppException)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { status: error.status, details: (error as AppException & { network: { details: string } }).network.details };
}

describe('MessagesService (in-memory fakes)', () => {
  let messages: FakeMessages;
  let idempotency: FakeIdempotency;
  let provider: FakeProvider;
  let throughput: FakeThroughput;
  let scheduled: FakeScheduled;
  let service: MessagesService;
  let rules: FakeRules;

  beforeEach(() => {
    messages = new FakeMessages();
    idempotency = new FakeIdempotency();
    provider = new FakeProvider();
    throughput = new FakeThroughput();
    scheduled = new FakeScheduled();
    rules = new FakeRules();
    service = new MessagesService(
      { NETWORK: 'whatsapp' } as NetworkConfig,
      { IDEMPOTENCY_TTL_SECONDS: 86_400 } as MessagesConfig,
      messages as unknown as MessagesRepository,
      idempotency as unknown as IdempotencyRepository,
      throughput as unknown as ThroughputLimiter,
      new FakePhones() as unknown as PhonesService,
      new ScheduledMessagesService({ NETWORK: 'whatsapp' } as NetworkConfig, scheduled as unknown as ScheduledMessagesRepository),
      rules as unknown as ConversationRules,
      provider as unknown as ChatProvider,
    );
  });

  it('checks the conversation rules before the provider: a refusal sends, records and spends nothing', async () => {
    rules.closed.add('15550109999');
    expect((await refusal(service.post(phone, text('15550109999'), 'key-1'))).status).toBe(400);
    expect(provider.sent).toEqual([]);
    expect(messages.rows).toEqual([]);
    // The key was released: the same request may be retried once the window opens.
    rules.closed.clear();
    await service.post(phone, text('15550109999'), 'key-1');
    expect(messages.rows.map((m) => m.wa_id)).toEqual(['15550109999']);
  });

  it('sends a text, answers the network’s id and records it once, then starts its statuses', async () => {
    const answer = await service.post(phone, text('+1 555 010 2030'), undefined);
    expect(answer).toEqual({ messaging_product: 'whatsapp', contacts: [{ input: '+1 555 010 2030', wa_id: '15550102030' }], messages: [{ id: 'wamid.1' }] });
    expect(provider.sent).toEqual([expect.objectContaining({ kind: 'send', type: 'text', to: '+1 555 010 2030' })]);
    expect(messages.rows.map((r) => [r.id, r.status])).toEqual([['wamid.1', 'accepted']]);
    expect(provider.stored).toEqual(['wamid.1']);
  });

  it('answers a repeated Idempotency-Key with the first answer and sends once; another body under it is a 400', async () => {
    const first = await service.post(phone, text(), 'order-1');
    expect(await service.post(phone, text(), 'order-1')).toEqual(first);
    expect(provider.sent).toHaveLength(1);
    expect(await refusal(service.post(phone, text('15550102030', 'other'), 'order-1'))).toEqual({
      status: 400,
      details: 'Idempotency-Key: was already used with a different request body',
    });
  });

  it('answers 409 while the first request with a key runs, and frees the key when its send fails', async () => {
    // Another replica holds the key for the same body, its send still running.
    await idempotency.claim(phone.phoneRef, 'busy', createHash('sha256').update(JSON.stringify(text())).digest());
    expect((await refusal(service.post(phone, text(), 'busy'))).status).toBe(409);
    provider.failure = new Error('network down');
    await expect(service.post(phone, text(), 'retry-me')).rejects.toThrow('network down');
    provider.failure = undefined;
    expect(await service.post(phone, text(), 'retry-me')).toMatchObject({ messages: [{ id: 'wamid.1' }] });
  });

  it('refuses a media id of no media of the account, naming its field, and sends nothing', async () => {
    messages.media.add('m-own');
    const image = (id: string): SendMessageBody => ({ messaging_product: 'whatsapp', to: '15550102030', type: 'image', image: { id } });
    expect(await refusal(service.post(phone, image('m-other'), undefined))).toEqual({
      status: 400,
      details: 'image.id: m-other is not a media id of this account',
    });
    expect(provider.sent).toEqual([]);
    await service.post(phone, image('m-own'), undefined);
    expect(provider.sent).toHaveLength(1);
  });

  it('marks a received message read without recording anything', async () => {
    expect(await service.post(phone, { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.IN' }, undefined)).toEqual({ success: true });
    expect(provider.read).toEqual(['wamid.IN']);
    expect(messages.rows).toEqual([]);
  });

  it('sends nothing over the phone’s throughput tier', async () => {
    throughput.left = 0;
    expect((await refusal(service.post(phone, text(), undefined))).status).toBe(429);
    expect(provider.sent).toEqual([]);
    expect(messages.rows).toEqual([]);
  });

  it('keeps the first record when the network answers an id already recorded, and still answers', async () => {
    await service.post(phone, text(), undefined);
    provider.nextId = 'wamid.1';
    expect(await service.post(phone, text('15550102031'), undefined)).toMatchObject({ messages: [{ id: 'wamid.1' }] });
    expect(messages.rows).toHaveLength(1);
    expect(messages.rows[0].to).toBe('15550102030');
    expect(provider.stored).toEqual(['wamid.1']);
  });

  it('finds a message of the account; any other id is a 404 naming it', async () => {
    await service.post(phone, text(), undefined);
    expect(await service.find(phone, 'wamid.1')).toMatchObject({ id: 'wamid.1', statuses: [{ status: 'accepted' }] });
    await expect(service.find({ ...phone, accountId: 'acc-2' }, 'wamid.1')).rejects.toBeInstanceOf(ResourceNotFoundException);
    expect((await refusal(service.find(phone, 'x'.repeat(256)))).status).toBe(404);
  });

  it('lists newest first, page by page, for the phone named by phone_id', async () => {
    for (const to of ['15550102031', '15550102032', '15550102033']) await service.post(phone, text(to), undefined);
    await service.post(sibling, text('15550102039'), undefined);
    const first = await service.list(phone, {}, paging());
    expect(first.data.map((m) => m.to)).toEqual(['15550102033', '15550102032']);
    expect(first.data[0].phone_id).toBe(phone.phoneId);
    const after = Buffer.from(first.paging.cursors.after!, 'base64url').toString('utf8');
    expect(first.paging.next).toBe(`/api/Messages?after=${first.paging.cursors.after}`);
    const second = await service.list(phone, {}, paging(after));
    expect(second).toEqual({ data: [expect.objectContaining({ to: '15550102031' })], paging: { cursors: { after: null } } });
    expect((await service.list(phone, { phone_id: sibling.phoneId }, paging())).data).toEqual([
      expect.objectContaining({ to: '15550102039', phone_id: sibling.phoneId }),
    ]);
  });

  it('counts the phone’s messages in hourly buckets, the current hour last: 24 by default, 168 for 7d', async () => {
    await service.post(phone, text(), undefined);
    await service.post(phone, text('15550102031'), undefined);
    const day = await service.stats(phone, {});
    expect(day).toMatchObject({ phone_id: phone.phoneId, window: '24h' });
    expect(day.data).toHaveLength(24);
    expect(day.data.at(-1)).toEqual({
      hour: `${new Date().toISOString().slice(0, 13)}:00:00Z`,
      total: 2,
      by_status: { accepted: 2, sent: 0, delivered: 0, read: 0, failed: 0 },
    });
    expect((await service.stats(phone, { window: '7d' })).data).toHaveLength(168);
  });

  it('stores a message with send_at without sending it, shows it scheduled, sends it later through the send path, and cancels only while scheduled', async () => {
    const sendAt = new Date(Date.now() + 60_000).toISOString();
    const answer = await service.post(phone, { ...text(), send_at: sendAt }, undefined);
    const id = (answer as { messages: { id: string }[] }).messages[0].id;
    expect(answer).toEqual({
      messaging_product: 'whatsapp',
      contacts: [{ input: '15550102030', wa_id: '15550102030' }],
      messages: [{ id, message_status: 'scheduled' }],
    });
    expect(id).toMatch(/^sched\.[\w-]{32}$/);
    expect(provider.sent).toEqual([]);
    expect(scheduled.rows[0].request.payload).not.toHaveProperty('send_at');
    expect(await service.find(sibling, id)).toMatchObject({ id, status: 'scheduled', send_at: sendAt, statuses: [{ status: 'scheduled' }] });
    await expect(service.find({ ...phone, accountId: 'acc-2' }, id)).rejects.toBeInstanceOf(ResourceNotFoundException);

    expect(await service.sendScheduled(phone, scheduled.rows[0].request)).toMatchObject({ messages: [{ id: 'wamid.1' }] });
    expect(provider.stored).toEqual(['wamid.1']);

    const other = (await service.post(phone, { ...text('15550102031'), send_at: sendAt }, 'later-1')) as { messages: { id: string }[] };
    expect(await service.post(phone, { ...text('15550102031'), send_at: sendAt }, 'later-1')).toEqual(other);
    expect(scheduled.rows).toHaveLength(2);
    expect(await service.cancel(phone, other.messages[0].id)).toMatchObject({
      status: 'cancelled',
      statuses: [{ status: 'scheduled' }, { status: 'cancelled' }],
    });
    expect(await refusal(service.cancel(phone, other.messages[0].id))).toEqual({
      status: 409,
      details: `id: message ${other.messages[0].id} is cancelled; only a scheduled message can be cancelled.`,
    });
    expect((await refusal(service.cancel(phone, 'wamid.1'))).status).toBe(409);
    expect((await refusal(service.cancel({ ...phone, accountId: 'acc-2' }, other.messages[0].id))).status).toBe(404);
  });
});
