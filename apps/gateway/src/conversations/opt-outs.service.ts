import { Injectable } from '@nestjs/common';
import { audited, AuditLog, type AuditActor } from '@app/audit';
import { Sql } from '@app/database';
import { ResourceNotFoundException } from '../errors/network-error.exception';
import type { PhoneContext } from '../network/chat-provider';
import { ConversationInbox } from './conversation-inbox.service';
import { WA_ID } from './conversation-query.dto';
import type { OptOutKeywords, OptOutView } from './opt-out.dto';
import { foldKeyword } from './opt-out-keywords';
import { OptOutsRepository } from './opt-outs.repository';

/** Opt-outs by hand (the account's, whichever of its phones asks) and the account's keywords. */
@Injectable()
export class OptOutsService {
  constructor(
    private readonly sql: Sql,
    private readonly optOuts: OptOutsRepository,
    private readonly inbox: ConversationInbox,
    private readonly audit: AuditLog,
  ) {}

  async find(phone: PhoneContext, waId: string): Promise<OptOutView> {
    const found = WA_ID.test(waId) ? await this.optOuts.find(phone.accountId, waId) : null;
    if (!found) throw new ResourceNotFoundException('opt-out', waId);
    return found;
  }

  /** Opts the contact out (`source: api`); an existing opt-out is kept as it is. */
  async put(phone: PhoneContext, waId: string, actor: AuditActor): Promise<OptOutView> {
    if (!WA_ID.test(waId)) throw new ResourceNotFoundException('contact', waId);
    const deliveries = await audited(this.sql, this.audit, actor, async (tx, record) => {
      const existing = await this.optOuts.find(phone.accountId, waId);
      const applied = await this.inbox.apply(tx, phone, { waId, change: 'out', source: 'api', keyword: null, profileName: null });
      // An opt-out that was already there is kept as it is: nothing changed, nothing is recorded.
      if (!existing) await record(optOutEntry(phone, waId, 'opt_out.set', null, { opted_out: true, source: 'api' }));
      return applied;
    });
    this.inbox.recorded(deliveries);
    return (await this.optOuts.find(phone.accountId, waId))!;
  }

  /** Lifts the opt-out; 404 when there is none. */
  async remove(phone: PhoneContext, waId: string, actor: AuditActor): Promise<void> {
    if (!WA_ID.test(waId)) throw new ResourceNotFoundException('opt-out', waId);
    const outcome = await audited(this.sql, this.audit, actor, async (tx, record) => {
      const existing = await this.optOuts.find(phone.accountId, waId);
      if (!existing) return null;
      const applied = await this.inbox.apply(tx, phone, { waId, change: 'in', source: 'api', keyword: null, profileName: null });
      await record(optOutEntry(phone, waId, 'opt_out.removed', { opted_out: true, source: existing.source }, null));
      return applied;
    });
    if (outcome === null) throw new ResourceNotFoundException('opt-out', waId);
    this.inbox.recorded(outcome);
  }

  async keywords(phone: PhoneContext): Promise<OptOutKeywords> {
    const keywords = await this.optOuts.keywords(this.sql, phone.accountId);
    return { opt_out: keywords.optOut, opt_in: keywords.optIn };
  }

  /** Replaces the account's keywords; they are stored folded (upper case, no accents), once each. */
  async setKeywords(phone: PhoneContext, body: OptOutKeywords, actor: AuditActor): Promise<OptOutKeywords> {
    const fold = (list: string[]) => [...new Set(list.map(foldKeyword))];
    const next = { optOut: fold(body.opt_out), optIn: fold(body.opt_in) };
    await audited(this.sql, this.audit, actor, async (tx, record) => {
      const before = await this.optOuts.keywords(tx, phone.accountId);
      await this.optOuts.setKeywords(phone.accountId, next, tx);
      await record({
        tenantId: phone.accountId,
        action: 'opt_out_keywords.set',
        targetType: 'opt_out_keywords',
        targetId: phone.accountId,
        before: { opt_out: before.optOut, opt_in: before.optIn },
        after: { opt_out: next.optOut, opt_in: next.optIn },
      });
    });
    return this.keywords(phone);
  }
}

/** An opt-out's audit record: the target is the contact (`wa_id`) of the account. */
function optOutEntry(phone: PhoneContext, waId: string, action: string, before: Record<string, unknown> | null, after: Record<string, unknown> | null) {
  return { tenantId: phone.accountId, action, targetType: 'opt_out', targetId: waId, before, after };
}
