import { Injectable } from '@nestjs/common';
import { ForbiddenPhoneException } from '../errors/network-error.exception';
import type { PhoneContext } from '../network/chat-provider';
import { AccountsRepository } from './accounts.repository';
import { ApiKeyStore } from './api-key.store';

/** The phone a request acts for: the key's own, or (where the spec offers `phone_id`) another phone of the same account. */
@Injectable()
export class PhonesService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly keys: ApiKeyStore,
  ) {}

  /** `phoneId` comes from a PhoneQuery, which checked its form. */
  async select(own: PhoneContext, phoneId: string | undefined): Promise<PhoneContext> {
    if (phoneId === undefined || phoneId === own.phoneId) return own;
    const row = await this.accounts.findPhone(own.accountId, phoneId);
    if (!row) throw new ForbiddenPhoneException(phoneId);
    return this.keys.phoneContext(row);
  }

  /** A phone of the account that owns a template (the network names only the template). */
  async byTemplate(templateId: string): Promise<PhoneContext | null> {
    const row = await this.accounts.findPhoneByTemplate(templateId);
    return row ? this.keys.phoneContext(row) : null;
  }

  async byNetworkId(phoneId: string): Promise<PhoneContext | null> {
    const row = await this.accounts.findPhoneById(phoneId);
    return row ? this.keys.phoneContext(row) : null;
  }
}
