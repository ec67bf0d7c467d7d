import { randomBytes } from 'node:crypto';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Sql } from '@app/database';
import { numericId } from '../common/numeric-id';
import { GatewayConfig } from '../config/gateway.config';
import { NetworkErrorCode, UpstreamException } from '../errors/network-error.exception';
import { MediaStorage } from '../media/media.storage';
import type { SendMessage } from '../messages/message.validator';
import { UNDELIVERABLE_ERROR } from '../notifications/network-notification';
import { NotificationsService } from '../notifications/notifications.service';
import type { ProfileFields } from '../profiles/profile.validator';
import { TemplatesRepository } from '../templates/templates.repository';
import { reviewRejection, variablesOf, type TemplateDraft } from '../templates/template.validator';
import type { ChatProvider, CreatedTemplate, MediaUpload, PhoneContext, SentMessage } from './chat-provider';

/** Recipients whose number ends in these digits are undeliverable in the sandbox (documented in the README). */
export const UNDELIVERABLE_SUFFIX = '0000';

/**
 * Behaves like the network without leaving the process: refuses what it refuses (unknown
 * or unapproved templates, wrong parameter counts), then plays sent → delivered → read
 * (or failed for an undeliverable number) SANDBOX_STATUS_DELAY_MS apart, and reviews a
 * template after SANDBOX_REVIEW_DELAY_MS, each step producing the network's notification.
 * Pending steps live in this process: a restart drops them.
 */
@Injectable()
export class SandboxProvider implements ChatProvider, OnApplicationShutdown {
  private readonly logger = new Logger(SandboxProvider.name);
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly config: GatewayConfig,
    private readonly sql: Sql,
    private readonly templates: TemplatesRepository,
    private readonly storage: MediaStorage,
    private readonly notifications: NotificationsService,
  ) {}

  onApplicationShutdown(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  async send(phone: PhoneContext, message: SendMessage): Promise<SentMessage> {
    if (message.template) await this.checkTemplate(phone, message.template);
    return { messageId: `wamid.${randomBytes(24).toString('base64url')}`, waId: message.to.replace(/\D/g, '') };
  }

  async markRead(): Promise<void> {
    // Customers' messages never reach the sandbox; marking one read is accepted, as the network does.
  }

  async uploadMedia(phone: PhoneContext, upload: MediaUpload): Promise<string> {
    const id = numericId();
    await this.storage.save(phone.accountId, id, upload.stream);
    return id;
  }

  async createTemplate(_phone: PhoneContext, draft: TemplateDraft): Promise<CreatedTemplate> {
    return { id: numericId(), status: 'PENDING', category: draft.category };
  }

  async getProfile(phone: PhoneContext): Promise<Record<string, unknown>> {
    const row = await this.sql.one<{ fields: Record<string, unknown> }>(`SELECT fields FROM gateway.profiles WHERE phone_ref = $1`, [phone.phoneRef]);
    return { ...(row?.fields ?? {}), messaging_product: this.config.NETWORK };
  }

  async updateProfile(phone: PhoneContext, fields: ProfileFields): Promise<void> {
    await this.sql.rows(
      `INSERT INTO gateway.profiles (phone_ref, fields) VALUES ($1, $2)
       ON CONFLICT (phone_ref) DO UPDATE SET fields = gateway.profiles.fields || EXCLUDED.fields, updated_at = now()`,
      [phone.phoneRef, JSON.stringify(fields)],
    );
  }

  messageStored(phone: PhoneContext, message: SentMessage & { to: string }): void {
    const steps = message.waId.endsWith(UNDELIVERABLE_SUFFIX) ? (['failed'] as const) : (['sent', 'delivered', 'read'] as const);
    const play = (i: number): void => {
      if (i >= steps.length) return;
      this.later(this.config.SANDBOX_STATUS_DELAY_MS, async () => {
        const status = steps[i];
        await this.notifications.messageStatus(phone, {
          messageId: message.messageId,
          status,
          timestamp: Math.floor(Date.now() / 1000),
          ...(status === 'failed' ? { errors: [UNDELIVERABLE_ERROR] } : {}),
        });
        play(i + 1);
      });
    };
    play(0);
  }

  templateStored(phone: PhoneContext, template: CreatedTemplate & { bodyText: string }): void {
    this.later(this.config.SANDBOX_REVIEW_DELAY_MS, async () => {
      const reason = reviewRejection(template.bodyText);
      await this.notifications.templateStatus(phone, template.id, reason ? 'REJECTED' : 'APPROVED', reason);
    });
  }

  private later(ms: number, work: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      work().catch((error) => this.logger.warn({ err: error }, 'sandbox step failed'));
    }, ms);
    this.timers.add(timer);
  }

  private async checkTemplate(phone: PhoneContext, wanted: NonNullable<SendMessage['template']>): Promise<void> {
    const template = await this.templates.findByName(phone.accountId, wanted.name, wanted.language);
    if (!template || template.status !== 'APPROVED') {
      throw new UpstreamException(400, {
        message: '(#132001) Template name does not exist in the translation',
        type: 'OAuthException',
        code: NetworkErrorCode.TemplateMissing,
        details: template
          ? `template name (${wanted.name}) in ${wanted.language} is ${template.status}, not APPROVED`
          : `template name (${wanted.name}) does not exist in ${wanted.language}`,
      });
    }
    const body = template.components.find((c) => String((c as { type?: unknown }).type).toUpperCase() === 'BODY') as { text?: string } | undefined;
    // An authentication template's body is the network's own text with one parameter: the code.
    const expected = template.category === 'AUTHENTICATION' ? 1 : body?.text ? variablesOf(body.text).length : 0;
    if (wanted.bodyParameters !== expected) {
      throw new UpstreamException(400, {
        message: '(#132000) Number of parameters does not match the expected number of params',
        type: 'OAuthException',
        code: NetworkErrorCode.TemplateParamCountMismatch,
        details: `body: number of localizable_params (${wanted.bodyParameters}) does not match the expected number of params (${expected})`,
      });
    }
  }
}
