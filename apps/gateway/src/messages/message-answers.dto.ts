import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf } from '../common/cursor-page.dto';
import { MESSAGE_TYPES } from '../network/chat-provider';
import { STATS_WINDOWS, type StatsWindow } from './message-query.dto';

const TIME = { format: 'date-time', example: '2026-11-27T10:00:00.000000Z' } as const;

class MessageContact {
  @ApiProperty({ description: 'The recipient as sent.', example: '+1 555 012 3456' })
  input!: string;

  @ApiProperty({ description: 'Its digits, the network id of the recipient.', example: '15550123456' })
  wa_id!: string;
}

class MessageId {
  @ApiProperty({
    description: "The network's message id, or a scheduled message's (`sched.…`).",
    example: 'wamid.HBgLMTU1NTAxMjM0NTYVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA',
  })
  id!: string;

  @ApiPropertyOptional({ enum: ['scheduled'], description: 'A message with `send_at`: stored, sent at its time.' })
  message_status?: 'scheduled';
}

/** POST api/Messages, a message sent. */
export class SendMessageAnswer {
  @ApiProperty({ example: 'whatsapp' })
  messaging_product!: string;

  @ApiProperty({ type: [MessageContact] })
  contacts!: MessageContact[];

  @ApiProperty({ type: [MessageId] })
  messages!: MessageId[];
}

/** A message as lists show it (its history is on GET api/Messages/{id}). */
export class MessageSummary {
  @ApiProperty({ example: 'wamid.HBgLMTU1NTAxMjM0NTYVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA' })
  id!: string;

  @ApiProperty({ description: "The sending phone's phone-number id.", example: '106540352242922' })
  phone_id!: string;

  @ApiProperty({ example: '+1 555 012 3456' })
  to!: string;

  @ApiProperty({ example: '15550123456' })
  wa_id!: string;

  @ApiProperty({ enum: MESSAGE_TYPES, example: 'text' })
  type!: string;

  @ApiProperty({
    description: 'The latest status: accepted, sent, delivered, read or failed; a scheduled message is scheduled, sending or cancelled before it is sent.',
    example: 'read',
  })
  status!: string;

  @ApiProperty(TIME)
  created_at!: string;

  @ApiProperty(TIME)
  updated_at!: string;
}

/** A status's `pricing`, in the network's shape. */
export class StatusPricingView {
  @ApiProperty({ description: 'Whether the network bills the message.', example: true })
  billable!: boolean;

  @ApiProperty({ description: 'PMP (per-message pricing).', example: 'PMP' })
  pricing_model!: string;

  @ApiProperty({ description: 'marketing, utility, authentication, service…', example: 'utility' })
  category!: string;

  @ApiPropertyOptional({ description: 'regular, free_customer_service or free_entry_point.', example: 'regular' })
  type?: string;
}

class ConversationOrigin {
  @ApiProperty({ example: 'utility' })
  type!: string;
}

/** A status's `conversation`, in the network's shape. */
export class StatusConversationView {
  @ApiProperty({ example: '5f1b7c3c0d1e2f3a4b5c6d7e8f901234' })
  id!: string;

  @ApiPropertyOptional({ description: 'Unix seconds (with `sent`).', example: '1764288000' })
  expiration_timestamp?: string;

  @ApiPropertyOptional({ type: ConversationOrigin })
  origin?: ConversationOrigin;
}

class MessageStatusEntry {
  @ApiProperty({ example: 'delivered' })
  status!: string;

  @ApiProperty(TIME)
  timestamp!: string;

  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true }, description: "The network's errors (failed)." })
  errors?: unknown[];

  @ApiPropertyOptional({ type: StatusPricingView, description: 'How the network prices the message (sent, delivered, read).' })
  pricing?: StatusPricingView;

  @ApiPropertyOptional({ type: StatusConversationView })
  conversation?: StatusConversationView;
}

/** GET api/Messages/{id}: the message and its status history, in arrival order. */
export class MessageView extends MessageSummary {
  @ApiProperty({ type: [MessageStatusEntry] })
  statuses!: MessageStatusEntry[];

  @ApiPropertyOptional({ ...TIME, description: 'A scheduled message: when it is (or was) to be sent.' })
  send_at?: string;

  @ApiPropertyOptional({ description: "A scheduled message once sent: the network's message id (its statuses and webhooks carry it)." })
  message_id?: string;
}

export const MessagesPage = PageOf(MessageSummary, 'MessagesPage');

/** Messages sent in one hour, by their current status. */
export class StatsBucket {
  @ApiProperty({ example: '2026-11-27T10:00:00Z' })
  hour!: string;

  @ApiProperty({ type: 'integer', example: 3 })
  total!: number;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, example: { accepted: 0, sent: 0, delivered: 1, read: 2, failed: 0 } })
  by_status!: Record<string, number>;
}

/** GET api/Stats. */
export class MessageStats {
  @ApiProperty({ example: '106540352242922' })
  phone_id!: string;

  @ApiProperty({ enum: Object.keys(STATS_WINDOWS), example: '24h' })
  window!: StatsWindow;

  @ApiProperty({ example: '2026-11-26T11:00:00Z' })
  since!: string;

  @ApiProperty({ type: [StatsBucket] })
  data!: StatsBucket[];
}
