import { Injectable } from '@nestjs/common';
import { SecretCipher } from '@app/secrets';
import { TargetPolicy } from '@app/webhooks';
import { PhonesService } from '../accounts/phones.service';
import { GatewayConfig } from '../config/gateway.config';
import { InvalidParameterException, NotFoundException } from '../errors/network-error.exception';
import type { PhoneContext } from '../providers/chat-provider';
import { parseWebhookRegistration, type WebhookRegistration } from './webhook-registration.validator';
import { WebhookRegistrationsRepository, type RegistrationRow } from './webhook-registrations.repository';

export interface RegistrationView {
  id: string;
  phone: string;
  phone_id: string;
  types?: string[];
  meta_version?: string;
  endpoint: string;
  create_date: string;
  update_date: string;
  headers: Record<string, string>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The spec's webhook registrations: several per account, each for one phone and some notification types. */
@Injectable()
export class WebhookRegistrationsService {
  constructor(
    private readonly config: GatewayConfig,
    private readonly registrations: WebhookRegistrationsRepository,
    private readonly phones: PhonesService,
    private readonly targets: TargetPolicy,
    private readonly cipher: SecretCipher,
  ) {}

  async create(own: PhoneContext, phoneId: unknown, body: unknown): Promise<RegistrationView & { success: true }> {
    const input = parseWebhookRegistration(body, { creating: true, acceptedTypes: this.config.webhookTypes });
    const phone = await this.targetPhone(own, phoneId, input);
    await this.checkEndpoint(input.endpoint!);
    const row = await this.registrations.insert({ accountId: own.accountId, phoneRef: phone.phoneRef, types: input.types!, endpoint: input.endpoint!, headers: this.seal(input.headers!) });
    const { meta_version: _omitted, ...view } = this.view(row);
    return { success: true, ...view };
  }

  async list(own: PhoneContext): Promise<{ webhooks: RegistrationView[]; success: true }> {
    return { webhooks: (await this.registrations.list(own.accountId)).map((row) => this.view(row)), success: true };
  }

  async update(own: PhoneContext, id: string, body: unknown): Promise<Omit<RegistrationView, 'types'> & { success: true }> {
    const input = parseWebhookRegistration(body, { creating: false, acceptedTypes: this.config.webhookTypes });
    const current = UUID.test(id) ? await this.registrations.find(own.accountId, id) : null;
    if (!current) throw new NotFoundException('webhook', id);
    const phone = input.phone !== undefined ? await this.targetPhone(own, current.phone_id, input) : undefined;
    if (input.endpoint !== undefined) await this.checkEndpoint(input.endpoint);
    const row = await this.registrations.update(own.accountId, id, {
      phoneRef: phone?.phoneRef,
      types: input.types,
      endpoint: input.endpoint,
      headers: input.headers === undefined ? undefined : this.seal(input.headers),
      metaVersion: input.metaVersion,
    });
    if (!row) throw new NotFoundException('webhook', id);
    const { types: _omitted, ...view } = this.view(row);
    return { success: true, ...view };
  }

  async delete(own: PhoneContext, id: string, phoneId: unknown): Promise<void> {
    const phone = phoneId === undefined ? undefined : await this.phones.select(own, phoneId);
    if (!UUID.test(id) || !(await this.registrations.delete(own.accountId, id, phone?.phoneRef))) throw new NotFoundException('webhook', id);
  }

  /** The phone a registration is for: the `phone_id` query's, else the key's; a `phone` in the body must be that phone's number. */
  private async targetPhone(own: PhoneContext, phoneId: unknown, input: WebhookRegistration): Promise<PhoneContext> {
    const phone = await this.phones.select(own, phoneId);
    if (input.phone !== undefined && input.phone !== phone.phone) throw new InvalidParameterException('phone', `must be ${phone.phone}, the number of phone id ${phone.phoneId}`);
    return phone;
  }

  private async checkEndpoint(endpoint: string): Promise<void> {
    const refusal = await this.targets.refusal(endpoint);
    if (refusal) throw new InvalidParameterException('endpoint', refusal);
  }

  private seal(headers: Record<string, string>): string {
    return this.cipher.encrypt(JSON.stringify(headers));
  }

  private view(row: RegistrationRow): RegistrationView {
    const { phone_ref: _ref, headers, ...rest } = row;
    return { ...rest, headers: JSON.parse(this.cipher.decrypt(headers)) as Record<string, string> };
  }
}
