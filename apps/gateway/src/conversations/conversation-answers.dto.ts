import { ApiProperty } from '@nestjs/swagger';
import { PageOf } from '../common/cursor-page.dto';

const TIME = { format: 'date-time', example: '2026-11-27T10:00:00.000000Z' } as const;
const DIRECTIONS = ['inbound', 'outbound'];

/** The latest message of a conversation, either way. */
export class ConversationLastMessage {
  @ApiProperty({ example: 'wamid.HBgLMTU1NTAxMjM0NTYVAgASGBQzQTdCRDc0RjQ2' })
  id!: string;

  @ApiProperty({ enum: DIRECTIONS, example: 'inbound' })
  direction!: string;

  @ApiProperty({ example: 'text' })
  type!: string;

  @ApiProperty({ description: 'Outbound: accepted, sent, delivered, read or failed; inbound: received or read (by the business).', example: 'received' })
  status!: string;

  @ApiProperty(TIME)
  timestamp!: string;

  @ApiProperty({ description: "A text's body, a media caption or a button's text; empty for other kinds.", example: 'Where is my order?' })
  text!: string;
}

/** GET api/Conversations: one contact of the phone. */
export class ConversationSummary {
  @ApiProperty({ description: "The contact's network id.", example: '15550123456' })
  wa_id!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The name the contact set, as the network last reported it.', example: 'Ana' })
  profile_name!: string | null;

  @ApiProperty({ type: ConversationLastMessage, nullable: true })
  last_message!: ConversationLastMessage | null;

  @ApiProperty({ type: 'integer', description: "The contact's messages the business has not marked read.", example: 2 })
  unread_count!: number;

  @ApiProperty({ enum: ['open', 'closed'], description: 'open: free-form messages may be sent; closed: only templates.', example: 'open' })
  window!: string;

  @ApiProperty({
    ...TIME,
    type: String,
    nullable: true,
    description: "When the service window closes (or closed): the contact's last message plus GATEWAY_SERVICE_WINDOW_SECONDS; null before the contact writes.",
  })
  window_expires_at!: string | null;

  @ApiProperty({ description: 'The contact opted out (GET api/OptOuts/{wa_id}).', example: false })
  opted_out!: boolean;
}

class ConversationStatus {
  @ApiProperty({ example: 'delivered' })
  status!: string;

  @ApiProperty(TIME)
  timestamp!: string;

  @ApiProperty({ required: false, type: 'array', items: { type: 'object', additionalProperties: true }, description: "The network's errors (failed)." })
  errors?: unknown[];
}

/** GET api/Conversations/{wa_id}/Messages: one message, either way. */
export class ConversationMessage {
  @ApiProperty({ example: 'wamid.HBgLMTU1NTAxMjM0NTYVAgASGBQzQTdCRDc0RjQ2' })
  id!: string;

  @ApiProperty({ enum: DIRECTIONS, example: 'outbound' })
  direction!: string;

  @ApiProperty({ example: 'text' })
  type!: string;

  @ApiProperty({ description: 'The latest status (as in `statuses`).', example: 'read' })
  status!: string;

  @ApiProperty(TIME)
  timestamp!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Outbound: the body as sent; inbound: the message as the network notified it (`from`, `id`, `timestamp`, `type` and its object).',
    example: { from: '15550123456', id: 'wamid.HBgLMTU1NTAxMjM0NTYVAgASGBQzQTdCRDc0RjQ2', timestamp: '1764237600', type: 'text', text: { body: 'Hi' } },
  })
  payload!: Record<string, unknown>;

  @ApiProperty({ type: [ConversationStatus], description: 'Outbound: accepted, sent, delivered, read or failed; inbound: received, then read.' })
  statuses!: ConversationStatus[];
}

export const ConversationsPage = PageOf(ConversationSummary, 'ConversationsPage');
export const ConversationMessagesPage = PageOf(ConversationMessage, 'ConversationMessagesPage');

/** POST api/Sandbox/Inbound: the message the sandbox notified as the contact's. */
export class SandboxInboundAnswer {
  @ApiProperty({ example: 'whatsapp' })
  messaging_product!: string;

  @ApiProperty({ description: 'The inbound message id (given, or made by the sandbox).', example: 'wamid.SANDBOX.HBgLMTU1NTAxMjM0NTY' })
  id!: string;

  @ApiProperty({ description: "The contact's network id.", example: '15550123456' })
  wa_id!: string;

  @ApiProperty({ description: 'Unix seconds, as the network writes them.', example: '1764237600' })
  timestamp!: string;
}
