import { Inject, Injectable } from '@nestjs/common';
import { audited, AuditLog, type AuditActor } from '@app/audit';
import { Sql } from '@app/database';
import { PhonesService } from '../accounts/phones.service';
import { CHAT_PROVIDER, type ChatProvider, type PhoneContext, type ProfileFields } from '../network/chat-provider';
import type { UpdateProfileBody } from './profile.dto';

@Injectable()
export class ProfilesService {
  constructor(
    private readonly phones: PhonesService,
    @Inject(CHAT_PROVIDER) private readonly provider: ChatProvider,
    private readonly sql: Sql,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Updates the profile of the key's phone, or of another phone of its account (`phone_id`). The profile lives at the
   * network: its audit record is written in a transaction that commits only once the network has taken the change.
   */
  async update(own: PhoneContext, phoneId: string | undefined, body: UpdateProfileBody, actor: AuditActor): Promise<{ success: true }> {
    const { messaging_product: _network, ...given } = body;
    // The fields given change; one sent as null is left as it is.
    const fields = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined && value !== null)) as ProfileFields;
    const phone = await this.phones.select(own, phoneId);
    await audited(this.sql, this.audit, actor, async (_tx, record) => {
      await record({
        tenantId: phone.accountId,
        action: 'profile.updated',
        targetType: 'profile',
        targetId: phone.phoneId,
        after: { ...fields },
      });
      await this.provider.updateProfile(phone, fields);
    });
    return { success: true };
  }

  async list(phone: PhoneContext): Promise<{ data: Record<string, unknown>[] }> {
    return { data: [await this.provider.getProfile(phone)] };
  }
}
