import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { numericId } from '../common/numeric-id';
import { GatewayConfig } from '../config/gateway.config';
import { InvalidParameterException, NetworkErrorCode, UpstreamException } from '../errors/network-error.exception';
import { MediaStorage } from '../media/media.storage';
import type { SendMessage } from '../messages/message.validator';
import type { ProfileFields } from '../profiles/profile.validator';
import { TEMPLATE_LANGUAGES } from '../templates/template-languages';
import { TemplatesRepository } from '../templates/templates.repository';
import { storedBodyText, variablesOf, type TemplateDraft } from '../templates/template.validator';
import type { ChatProvider, CreatedTemplate, MediaUpload, PhoneContext, SentMessage } from './chat-provider';
import { SandboxPlayback } from './sandbox-playback.service';

/**
 * Behaves like the network without leaving the process: refuses what it refuses (unknown
 * or unapproved templates, wrong parameter counts, a template language it does not list);
 * SandboxPlayback then plays the statuses and the template review, each step producing the
 * network's notification.
 */
@Injectable()
export class SandboxProvider implements ChatProvider {
  constructor(
    private readonly config: GatewayConfig,
    private readonly sql: Sql,
    private readonly templates: TemplatesRepository,
    private readonly storage: MediaStorage,
    private readonly playback: SandboxPlayback,
  ) {}

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
    if (!TEMPLATE_LANGUAGES.has(draft.language)) throw new InvalidParameterException('language', `${draft.language} is not a language the network takes templates in`);
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
    this.playback.messageAccepted(phone, message.messageId, message.waId);
  }

  templateStored(phone: PhoneContext, template: CreatedTemplate & { bodyText: string }): void {
    this.playback.templateCreated(phone, template.id, template.bodyText);
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
    // An authentication template's body is the network's own text with one parameter: the code.
    const expected = template.category === 'AUTHENTICATION' ? 1 : variablesOf(storedBodyText(template.components)).length;
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
