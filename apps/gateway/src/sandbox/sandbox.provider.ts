import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { numericId } from '../common/numeric-id';
import { NetworkConfig } from '../network/network.config';
import type { Readable } from 'node:stream';
import { InvalidParameterException, NetworkErrorCode, ResourceNotFoundException, UpstreamException } from '../errors/network-error.exception';
import type {
  ChatProvider,
  CreatedTemplate,
  MediaUpload,
  PhoneContext,
  ProfileFields,
  SendMessage,
  SentMessage,
  TemplateDraft,
} from '../network/chat-provider';
import { variablesOf } from '../network/template-variables';
import { MediaStorage } from './media.storage';
import { SandboxPlayback } from './sandbox-playback.service';
import { SandboxRepository } from './sandbox.repository';
import { TEMPLATE_LANGUAGES } from './template-languages';
import { storedBodyText } from './template-review';

/**
 * Behaves like the network without leaving the process: refuses what it refuses (unknown
 * or unapproved templates, wrong parameter counts, a template language it does not list);
 * SandboxPlayback then plays the statuses and the template review, reporting each step as
 * the network would (NetworkEvents).
 */
@Injectable()
export class SandboxProvider implements ChatProvider {
  constructor(
    private readonly config: NetworkConfig,
    private readonly repository: SandboxRepository,
    private readonly storage: MediaStorage,
    private readonly playback: SandboxPlayback,
  ) {}

  async send(phone: PhoneContext, message: SendMessage): Promise<SentMessage> {
    if (message.template) await this.checkTemplate(phone, message.template);
    return { messageId: `wamid.${randomBytes(24).toString('base64url')}`, waId: message.to.replace(/\D/g, '') };
  }

  async markRead(): Promise<void> {
    // Marking a customer's message read is accepted, as the network does; the gateway records it (ConversationRules).
  }

  async uploadMedia(phone: PhoneContext, upload: MediaUpload): Promise<string> {
    const id = numericId();
    await this.storage.save(phone.accountId, id, upload.stream);
    return id;
  }

  async downloadMedia(phone: PhoneContext, mediaId: string): Promise<Readable> {
    const file = await this.storage.open(phone.accountId, mediaId);
    if (!file) throw new ResourceNotFoundException('media', mediaId);
    return file;
  }

  async discardMedia(phone: PhoneContext, mediaId: string): Promise<void> {
    await this.storage.remove(phone.accountId, mediaId);
  }

  createTemplate(_phone: PhoneContext, draft: TemplateDraft): Promise<CreatedTemplate> {
    if (!TEMPLATE_LANGUAGES.has(draft.language))
      return Promise.reject(new InvalidParameterException('language', `${draft.language} is not a language the network takes templates in`));
    return Promise.resolve({ id: numericId(), status: 'PENDING', category: draft.category });
  }

  async getProfile(phone: PhoneContext): Promise<Record<string, unknown>> {
    return { ...(await this.repository.profile(phone.phoneRef)), messaging_product: this.config.NETWORK };
  }

  async updateProfile(phone: PhoneContext, fields: ProfileFields): Promise<void> {
    await this.repository.updateProfile(phone.phoneRef, fields);
  }

  messageStored(phone: PhoneContext, message: SentMessage & { to: string }): void {
    this.playback.messageAccepted(phone, message.messageId, message.waId);
  }

  templateStored(phone: PhoneContext, template: CreatedTemplate & { bodyText: string }): void {
    this.playback.templateCreated(phone, template.id, template.bodyText);
  }

  private async checkTemplate(phone: PhoneContext, wanted: NonNullable<SendMessage['template']>): Promise<void> {
    const template = await this.repository.template(phone.accountId, wanted.name, wanted.language);
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
