import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { HTTP_URL, list, MessagingProduct, oneOf, Rule, text } from '../common/rule.decorator';

export const VERTICALS = [
  '',
  'UNDEFINED',
  'OTHER',
  'AUTO',
  'BEAUTY',
  'APPAREL',
  'EDU',
  'ENTERTAIN',
  'EVENT_PLAN',
  'FINANCE',
  'GROCERY',
  'GOVT',
  'HOTEL',
  'HEALTH',
  'NONPROFIT',
  'PROF_SERVICES',
  'RETAIL',
  'TRAVEL',
  'RESTAURANT',
  'NOT_A_BIZ',
] as const;

/** The spec's Business profile table. */
export const PROFILE_LIMITS = { address: 256, description: 256, about: 139, email: 128, websites: 2, website: 256 } as const;
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** The body of POST api/Profiles: the fields given change. */
export class UpdateProfileBody {
  @ApiProperty({ example: 'whatsapp', description: "The gateway's network (GATEWAY_NETWORK)." })
  @MessagingProduct()
  messaging_product!: string;

  @ApiPropertyOptional({ maxLength: PROFILE_LIMITS.address })
  @IsOptional()
  @Rule('address', (v) => text(v, { min: 0, max: PROFILE_LIMITS.address }))
  address?: string;

  @ApiPropertyOptional({ maxLength: PROFILE_LIMITS.description, example: 'Mugs and plates' })
  @IsOptional()
  @Rule('description', (v) => text(v, { min: 0, max: PROFILE_LIMITS.description }))
  description?: string;

  @ApiPropertyOptional({ enum: VERTICALS, example: 'RETAIL' })
  @IsOptional()
  @Rule('vertical', (v) => oneOf(v, VERTICALS))
  vertical?: (typeof VERTICALS)[number];

  @ApiPropertyOptional({ minLength: 1, maxLength: PROFILE_LIMITS.about, example: 'Open 9-18' })
  @IsOptional()
  @Rule('about', (v) => text(v, { max: PROFILE_LIMITS.about }))
  about?: string;

  @ApiPropertyOptional({ format: 'email', maxLength: PROFILE_LIMITS.email, example: 'hello@example.com' })
  @IsOptional()
  @Rule('email', (v) => text(v, { max: PROFILE_LIMITS.email, pattern: EMAIL, rule: 'must be a valid e-mail address' }))
  email?: string;

  @ApiPropertyOptional({ type: [String], maxItems: PROFILE_LIMITS.websites, example: ['https://example.com'] })
  @IsOptional()
  @Rule('websites', (v) =>
    list(v, 0, PROFILE_LIMITS.websites, (w) => text(w, { max: PROFILE_LIMITS.website, pattern: HTTP_URL, rule: 'must start with http:// or https://' })),
  )
  websites?: string[];
}
