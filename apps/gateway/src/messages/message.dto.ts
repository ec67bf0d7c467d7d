import type { ApiBodyOptions, SchemaObject } from '@nestjs/swagger';
import { MESSAGE_TYPES } from '../network/chat-provider';
import { MEDIA_TYPES, MESSAGE_LIMITS } from './message.validator';

const MEDIA: SchemaObject = {
  type: 'object',
  description: 'Exactly one of `id` (from POST api/Medias) or `link`; `caption` for image, video and document, `filename` for document.',
  properties: {
    id: { type: 'string' },
    link: { type: 'string', format: 'uri' },
    caption: { type: 'string', maxLength: MESSAGE_LIMITS.caption },
    filename: { type: 'string' },
  },
};
const FREE_FORM = (what: string): SchemaObject => ({
  type: 'object',
  additionalProperties: true,
  description: `The ${what} object of the network's message, checked field by field.`,
});

/**
 * The body of POST api/Messages, validated by hand (parseMessageRequest): `type` picks the
 * object that holds the content. The examples work as sent against the sandbox.
 */
export const SEND_MESSAGE_BODY: ApiBodyOptions = {
  description:
    'A message to send (`type` names the object holding its content; text by default), or `{messaging_product, status: "read", message_id}` to mark a received message as read.',
  schema: {
    type: 'object',
    required: ['messaging_product'],
    properties: {
      messaging_product: { type: 'string', example: 'whatsapp', description: "The gateway's network (GATEWAY_NETWORK)." },
      recipient_type: { type: 'string', enum: ['individual'] },
      to: { type: 'string', description: 'The recipient: digits with the country code.', example: '15551234567' },
      type: { type: 'string', enum: [...MESSAGE_TYPES], default: 'text' },
      context: { type: 'object', description: 'Reply to a message.', properties: { message_id: { type: 'string' } } },
      biz_opaque_callback_data: { type: 'string', maxLength: 512 },
      text: {
        type: 'object',
        required: ['body'],
        properties: { body: { type: 'string', maxLength: MESSAGE_LIMITS.textBody }, preview_url: { type: 'boolean' } },
      },
      ...Object.fromEntries(MEDIA_TYPES.map((kind) => [kind, MEDIA])),
      interactive: FREE_FORM('interactive (button, list or flow)'),
      contacts: { type: 'array', items: FREE_FORM('contact') },
      location: {
        type: 'object',
        properties: { latitude: { type: 'number' }, longitude: { type: 'number' }, name: { type: 'string' }, address: { type: 'string' } },
      },
      reaction: { type: 'object', properties: { message_id: { type: 'string' }, emoji: { type: 'string' } } },
      template: FREE_FORM('template (name, language, components)'),
      status: { type: 'string', enum: ['read'], description: 'Only to mark a received message as read, with message_id.' },
      message_id: { type: 'string' },
    },
  },
  examples: {
    text: {
      summary: 'A text message',
      value: { messaging_product: 'whatsapp', recipient_type: 'individual', to: '15551234567', type: 'text', text: { body: 'Hello from the gateway' } },
    },
    image: {
      summary: 'An image by link, with a caption',
      value: { messaging_product: 'whatsapp', to: '15551234567', type: 'image', image: { link: 'https://example.com/mug.jpg', caption: 'Our new mug' } },
    },
    buttons: {
      summary: 'Reply buttons',
      value: {
        messaging_product: 'whatsapp',
        to: '15551234567',
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'Keep the order?' },
          action: {
            buttons: [
              { type: 'reply', reply: { id: 'yes', title: 'Yes' } },
              { type: 'reply', reply: { id: 'no', title: 'No' } },
            ],
          },
        },
      },
    },
  },
};
