import { IntersectionType } from '@nestjs/swagger';
import { KeysetPageQuery } from '../common/cursor-page.dto';
import { PhoneQuery } from '../common/phone-query.dto';

/** GET api/Conversations and GET api/Conversations/{wa_id}/Messages: a keyset page, and `phone_id`. */
export class ConversationListQuery extends IntersectionType(KeysetPageQuery, PhoneQuery) {}

/** A contact's network id in a path: digits. Anything else names no contact (404). */
export const WA_ID = /^\d{1,32}$/;
