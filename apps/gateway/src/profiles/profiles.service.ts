import { Inject, Injectable } from '@nestjs/common';
import { PhonesService } from '../accounts/phones.service';
import { NetworkConfig } from '../network/network.config';
import { CHAT_PROVIDER, type ChatProvider, type PhoneContext } from '../network/chat-provider';
import { parseProfileUpdate } from './profile.validator';

@Injectable()
export class ProfilesService {
  constructor(
    private readonly config: NetworkConfig,
    private readonly phones: PhonesService,
    @Inject(CHAT_PROVIDER) private readonly provider: ChatProvider,
  ) {}

  /** Updates the profile of the key's phone, or of another phone of its account (`phone_id`). */
  async update(own: PhoneContext, phoneId: unknown, body: unknown): Promise<{ success: true }> {
    const fields = parseProfileUpdate(body, this.config.NETWORK);
    await this.provider.updateProfile(await this.phones.select(own, phoneId), fields);
    return { success: true };
  }

  async list(phone: PhoneContext): Promise<{ data: Record<string, unknown>[] }> {
    return { data: [await this.provider.getProfile(phone)] };
  }
}
