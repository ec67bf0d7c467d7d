import type { ApiBodyOptions, SchemaObject } from '@nestjs/swagger';

const FIELDS: Record<string, SchemaObject> = {
  phone: { type: 'string', description: "The business phone number (digits); it must be the target phone's." },
  types: { type: 'array', minItems: 1, items: { type: 'string', example: 'messages' }, description: 'Event types, from WEBHOOK_TYPES (default: messages).' },
  endpoint: { type: 'string', format: 'uri', maxLength: 2000, description: 'An https URL whose certificate the gateway trusts.' },
  headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 1024 }, maxProperties: 20, description: 'Extra headers sent with every delivery.' },
};

/** The body of POST api/Webhooks, validated by hand (parseWebhookRegistration). */
export const CREATE_WEBHOOK_BODY: ApiBodyOptions = {
  schema: { type: 'object', required: ['types', 'endpoint'], properties: FIELDS },
  examples: { messages: { summary: 'Message events', value: { types: ['messages'], endpoint: 'https://hooks.example.com/gateway', headers: { 'X-Source': 'gateway' } } } },
};

/** The body of PUT api/Webhooks/{id}: what is given changes. */
export const UPDATE_WEBHOOK_BODY: ApiBodyOptions = {
  schema: { type: 'object', properties: { ...FIELDS, meta_version: { type: 'string', enum: ['LASTEST'] } } },
  examples: { endpoint: { summary: 'Move the endpoint', value: { endpoint: 'https://hooks.example.com/gateway/v2' } } },
};
