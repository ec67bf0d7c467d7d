import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { Rule } from './rule.decorator';

/** A phone-number id as the network writes one. */
export const PHONE_ID = /^[\w.-]{1,64}$/;
export const PHONE_ID_RULE = 'must be a phone-number id';

/** `phone_id`: act for another phone of the key's account (403 for a stranger's). */
export class PhoneQuery {
  @ApiPropertyOptional({ description: 'Another phone of the same account', pattern: PHONE_ID.source })
  @IsOptional()
  @Rule('phoneId', (v) => (typeof v === 'string' && PHONE_ID.test(v) ? null : PHONE_ID_RULE))
  phone_id?: string;
}
