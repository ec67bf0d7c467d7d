import type { ApiBodyOptions } from '@nestjs/swagger';
import { VERTICALS } from './profile.validator';

/** The body of POST api/Profiles, validated by hand (parseProfileUpdate): the fields given change. */
export const UPDATE_PROFILE_BODY: ApiBodyOptions = {
  schema: {
    type: 'object',
    required: ['messaging_product'],
    properties: {
      messaging_product: { type: 'string', example: 'whatsapp' },
      address: { type: 'string', maxLength: 256 },
      description: { type: 'string', maxLength: 256 },
      vertical: { type: 'string', enum: [...VERTICALS] },
      about: { type: 'string', minLength: 1, maxLength: 139 },
      email: { type: 'string', format: 'email', maxLength: 128 },
      websites: { type: 'array', maxItems: 2, items: { type: 'string', format: 'uri', maxLength: 256 } },
    },
  },
  examples: {
    shop: { summary: 'A shop', value: { messaging_product: 'whatsapp', about: 'Mugs and plates', vertical: 'RETAIL', email: 'hello@example.com', websites: ['https://example.com'] } },
  },
};
