import type { ApiBodyOptions } from '@nestjs/swagger';
import { TEMPLATE_CATEGORIES } from '../network/chat-provider';
import { TEMPLATE_LIMITS } from './template.validator';

/** The body of POST api/Templates, validated by hand (parseTemplateDraft). The example works as sent. */
export const CREATE_TEMPLATE_BODY: ApiBodyOptions = {
  schema: {
    type: 'object',
    required: ['name', 'category', 'language', 'components'],
    properties: {
      name: { type: 'string', maxLength: TEMPLATE_LIMITS.name, pattern: '^[a-z0-9_]+$' },
      category: { type: 'string', enum: [...TEMPLATE_CATEGORIES] },
      allow_category_change: { type: 'boolean' },
      language: { type: 'string', example: 'en_US' },
      message_send_ttl_seconds: { type: 'integer', minimum: 30, maximum: 900, description: 'AUTHENTICATION templates only.' },
      components: {
        type: 'array',
        minItems: 1,
        maxItems: 4,
        description: 'HEADER, BODY (required; variables {{1}}, {{2}}... with an example), FOOTER and BUTTONS, each at most once.',
        items: {
          type: 'object',
          required: ['type'],
          additionalProperties: true,
          properties: { type: { type: 'string', enum: ['HEADER', 'BODY', 'FOOTER', 'BUTTONS'] } },
        },
      },
    },
  },
  examples: {
    utility: {
      summary: 'An order update with one variable',
      value: {
        name: 'order_update',
        category: 'UTILITY',
        language: 'en_US',
        components: [
          { type: 'BODY', text: 'Your order {{1}} is on its way.', example: { body_text: [['A-1001']] } },
          { type: 'FOOTER', text: 'Reply STOP to opt out' },
        ],
      },
    },
  },
};
