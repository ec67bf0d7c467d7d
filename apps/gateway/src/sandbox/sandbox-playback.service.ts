import { createHash } from 'node:crypto';
import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { NetworkConfig } from '../network/network.config';
import { SandboxConfig } from './sandbox.config';
import type { PhoneContext } from '../network/chat-provider';
import { NetworkEvents, type StatusConversation, type StatusPricing } from '../network/network-events';
import { pricesOf, pricingCategory, sandboxPricing } from '../pricing/price-table';
import { PricingConfig } from '../pricing/pricing.config';
import { SandboxRepository, type MessagePricingFacts, type PhoneColumns } from './sandbox.repository';
import { reviewRejection, storedBodyText } from './template-review';

/** Recipients whose number ends in these digits are undeliverable in the sandbox (documented in the README). */
export const UNDELIVERABLE_SUFFIX = '0000';

/** The network's error for an undeliverable message, as it appears in a `failed` status. */
const UNDELIVERABLE_ERROR = {
  code: 131026,
  title: 'Message undeliverable',
  message: 'Message undeliverable',
  error_data: { details: 'Message Undeliverable.' },
};

type Step = 'sent' | 'delivered' | 'read' | 'failed';

const DAY_MS = 86_400_000;

const PAGE = 500;
/** Longest wait for sandbox steps under way at shutdown. */
const SHUTDOWN_WAIT_MS = 3000;

/**
 * The sandbox's network side: plays sent → delivered → read (or failed) SANDBOX_STATUS_DELAY_MS
 * apart and reviews a template SANDBOX_REVIEW_DELAY_MS after its creation. The steps are due
 * at times counted from what the database recorded, so a booting process resumes what a
 * stopped one left (past-due steps at once). Every replica may play the same step: recording
 * a status is an insert on (message, status) that does nothing the second time, and a review
 * an update that only changes a different status, so each notification is produced once.
 */
@Injectable()
export class SandboxPlayback implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(SandboxPlayback.name);
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly networkConfig: NetworkConfig,
    private readonly config: SandboxConfig,
    private readonly pricing: PricingConfig,
    private readonly repository: SandboxRepository,
    private readonly network: NetworkEvents,
  ) {}

  onApplicationBootstrap(): void {
    if (this.networkConfig.GATEWAY_PROVIDER !== 'sandbox') return;
    this.track(this.resume());
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    // Steps under way finish before the database pool closes, within a bound: a step stuck on
    // a database that is gone must not hold the shutdown (its state is in the database, so the
    // next boot resumes it).
    let timer: NodeJS.Timeout | undefined;
    const settled = await Promise.race([
      Promise.all([...this.running]).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), SHUTDOWN_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (!settled) this.logger.warn(`${this.running.size} sandbox step(s) still running at shutdown; the next boot resumes them`);
  }

  /** A message was just recorded as accepted. */
  messageAccepted(phone: PhoneContext, messageId: string, waId: string): void {
    this.track(this.playMessage(phone, { id: messageId, waId }, stepsAfter('accepted', waId), Date.now()));
  }

  /** A template was just recorded as PENDING. */
  templateCreated(phone: PhoneContext, templateId: string, bodyText: string): void {
    this.track(this.review(phone, templateId, bodyText, Date.now()));
  }

  /** Picks up every message and template a stopped process left midway. */
  private async resume(): Promise<void> {
    await this.eachRow(
      (after) => this.repository.unfinishedMessages(after, PAGE),
      (m) => this.playMessage(phoneOf(m), { id: m.id, waId: m.wa_id, facts: m }, stepsAfter(m.status, m.wa_id), m.since_ms),
    );
    await this.eachRow(
      (after) => this.repository.pendingTemplates(after, PAGE),
      (t) => this.review(phoneOf(t), t.id, storedBodyText(t.components), t.since_ms),
    );
  }

  /** Runs `play` on every row `page` returns, PAGE rows at a time in id order, until stopped; one row's failure is logged. */
  private async eachRow<R extends { id: string }>(page: (after: string) => Promise<R[]>, play: (row: R) => Promise<void>): Promise<void> {
    for (let after = ''; !this.stopped;) {
      const rows = await page(after);
      for (const row of rows) await play(row).catch((error: unknown) => this.failed(error));
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1].id;
    }
  }

  /**
   * Plays `steps`, the first due one delay after `since`, each next one a delay later; a due step runs now.
   * `sent`, `delivered` and `read` carry the message's `pricing` and `conversation` (see statusPricing).
   */
  private async playMessage(phone: PhoneContext, message: PlayedMessage, steps: Step[], since: number): Promise<void> {
    const delay = this.config.SANDBOX_STATUS_DELAY_MS;
    for (let i = 0; i < steps.length && !this.stopped; i++) {
      const wait = since + (i + 1) * delay - Date.now();
      if (wait > 0) {
        this.later(wait, () => this.playMessage(phone, message, steps.slice(i), since + i * delay));
        return;
      }
      const status = steps[i];
      const priced = status === 'failed' ? {} : await this.statusPricing(phone, message, status);
      await this.network.messageStatus(phone, {
        messageId: message.id,
        status,
        timestamp: Math.floor(Date.now() / 1000),
        ...priced,
        ...(status === 'failed' ? { errors: [UNDELIVERABLE_ERROR] } : {}),
      });
    }
  }

  /**
   * The `pricing` and `conversation` of a delivered message's status, as the network reports them: the category is the
   * template's (else `service`), billable by the price table (PRICING_TABLE); the conversation is one per phone, contact,
   * category and UTC day (its id a hash of those), expiring at the day's end, `expiration_timestamp` only with `sent`.
   */
  private async statusPricing(
    phone: PhoneContext,
    message: PlayedMessage,
    status: Step,
  ): Promise<{ pricing?: StatusPricing; conversation?: StatusConversation }> {
    message.facts ??= (await this.repository.messagePricing(message.id)) ?? undefined;
    if (!message.facts) return {};
    const category = pricingCategory(message.facts.template_category);
    const day = Math.floor(message.facts.created_ms / DAY_MS) * DAY_MS;
    const id = createHash('sha256').update(`${phone.phoneRef}:${message.waId}:${category}:${day}`).digest('hex').slice(0, 32);
    return {
      pricing: sandboxPricing(category, pricesOf(this.pricing.PRICING_TABLE)),
      conversation: { id, ...(status === 'sent' ? { expiration_timestamp: String((day + DAY_MS) / 1000) } : {}), origin: { type: category } },
    };
  }

  private async review(phone: PhoneContext, templateId: string, bodyText: string, since: number): Promise<void> {
    const wait = since + this.config.SANDBOX_REVIEW_DELAY_MS - Date.now();
    if (wait > 0) return this.later(wait, () => this.review(phone, templateId, bodyText, since));
    if (this.stopped) return;
    const reason = reviewRejection(bodyText);
    await this.network.templateStatus(phone, templateId, reason ? 'REJECTED' : 'APPROVED', reason);
  }

  private later(ms: number, work: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.track(work());
    }, ms);
    this.timers.add(timer);
  }

  private track(work: Promise<void>): void {
    const running = work.catch((error: unknown) => this.failed(error));
    this.running.add(running);
    void running.finally(() => this.running.delete(running));
  }

  private failed(error: unknown): void {
    this.logger.warn({ err: error }, 'sandbox step failed');
  }
}

/** A message whose statuses the sandbox plays; `facts` are looked up when its first priced status is due. */
interface PlayedMessage {
  id: string;
  waId: string;
  facts?: MessagePricingFacts;
}

/** The steps still to play after `current`: none once final. */
function stepsAfter(current: string, waId: string): Step[] {
  const all: Step[] = waId.endsWith(UNDELIVERABLE_SUFFIX) ? ['failed'] : ['sent', 'delivered', 'read'];
  if (current === 'accepted') return all;
  const at = all.indexOf(current as Step);
  return at < 0 ? [] : all.slice(at + 1);
}

/** The phone a stored row names; the sandbox never calls the network, so no access token. */
function phoneOf(row: PhoneColumns): PhoneContext {
  return { accountId: row.account_id, phoneRef: row.phone_ref, phone: row.phone, phoneId: row.phone_id, wabaId: row.waba_id, accessToken: null };
}
