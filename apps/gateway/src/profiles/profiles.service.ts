import { Inject, Injectable } from '@nestjs/common';
import { PhonesService } from '../accounts/phones.service';
import { CHAT_PROVIDER, type ChatProvider, type PhoneContext, type ProfileFields } from '../network/chat-provider';
import type { UpdateProfileBody } from './profile.dto';

@Injectable()
export class ProfilesService {
  constructor(
    private readonly phones: PhonesService,
    @Inject(CHAT_PROVIDER) private readonly provider: ChatProvider,
  ) {}

  /** Updates the profile of the key's phone, or of another phone of its account (`phone_id`). */
  async update(own: PhoneContext, phoneId: string | undefined, body: UpdateProfileBody): Promise<{ success: true }> {
    const { messaging_product: _network, ...given } = body;
    // The fields given change; one sent as null is left as it is.
    const fields = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined && value !== null)) as ProfileFields;
    await this.provider.updateProfile(await this.phones.select(own, phoneId), fields);
    return { success: true };
  }

  async list(phone: PhoneContext): Promise<{ data: Record<string, unknown>[] }> {
    return { data: [await this.provider.getProfile(phone)] };
  }
}
