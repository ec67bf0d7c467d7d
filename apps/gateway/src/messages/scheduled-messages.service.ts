import { randomBytes } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { NetworkConfig } from '../network/network.config';
import { GatewayErrorCode, NetworkErrorCode, NetworkErrorException } from '../errors/network-error.exception';
import type { PhoneContext, SendMessage } from '../network/chat-provider';
import type { MessageView, SendMessageAnswer } from './message-answers.dto';
import { ScheduledMessagesRepository, type ScheduledRow } from './scheduled-messages.repository';

/** Ids of scheduled messages: apart from the network's `wamid.` ones. */
export const SCHEDULED_ID = /^sched\.[A-Za-z0-9_-]{32}$/;
/** A message left `sending` this long lost its worker mid-send (graceful stops finish their sends first). */
export const ABANDONED_AFTER_MS = 5 * 60_000;
const SWEEP_MS = 30_000;

/** The error a message gets when its worker died while sending it: the network may have taken it, so it is not sent again. */
const ABANDONED_ERROR = {
  code: NetworkErrorCode.Unknown,
  title: 'Send outcome unknown',
  message: 'Send outcome unknown',
  error_data: { details: 'The worker sending this message stopped before recording the outcome; it is not sent again.' },
};

/**
 * Messages sent later (`send_at`): stored as `scheduled`, sent at their time by the scheduled-send lane
 * (ScheduledSendProcessor), cancelled while still scheduled. Also fails messages whose worker died mid-send.
 */
@Injectable()
export class ScheduledMessagesService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ScheduledMessagesService.name);
  private sweep?: NodeJS.Timeout;

  constructor(
    private readonly network: NetworkConfig,
    private readonly scheduled: ScheduledMessagesRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.sweep = setInterval(() => void this.failAbandoned(), SWEEP_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweep);
  }

  /** Stores the message to send at `sendAt` (checked by the DTO) and answers as a send does, with the scheduled id. */
  async schedule(phone: PhoneContext, request: SendMessage, sendAt: string): Promise<SendMessageAnswer> {
    const id = `sched.${randomBytes(24).toString('base64url')}`;
    const waId = request.to.replace(/\D/g, '');
    await this.scheduled.insert({ id, phoneRef: phone.phoneRef, to: request.to, waId, request, sendAt: new Date(sendAt).toISOString() });
    return { messaging_product: this.network.NETWORK, contacts: [{ input: request.to, wa_id: waId }], messages: [{ id, message_status: 'scheduled' }] };
  }

  /** The account's scheduled message; null when `id` is none (`sent` ones come with their network message id). */
  find(accountId: string, id: string): Promise<ScheduledRow | null> {
    return SCHEDULED_ID.test(id) ? this.scheduled.find(accountId, id) : Promise.resolve(null);
  }

  /** Cancels the account's message while still scheduled; false when it is not (sending, sent, cancelled, failed, or none). */
  cancel(accountId: string, id: string): Promise<boolean> {
    return SCHEDULED_ID.test(id) ? this.scheduled.cancel(accountId, id) : Promise.resolve(false);
  }

  private async failAbandoned(): Promise<void> {
    try {
      const failed = await this.scheduled.failAbandoned(ABANDONED_AFTER_MS, ABANDONED_ERROR);
      if (failed > 0) this.logger.warn({ count: failed }, 'scheduled messages whose worker stopped mid-send marked failed');
    } catch (error) {
      this.logger.warn({ err: error }, 'could not look for abandoned scheduled sends');
    }
  }
}

/**
 * GET api/Messages/{id} of a scheduled message: `scheduled` first, then `cancelled` or `failed` (with the error), or once
 * sent the sent message's own status and history (`sent`, the network's id in `message_id`).
 */
export function scheduledView(row: ScheduledRow, sent: MessageView | null): MessageView {
  const { state, error, message_id: messageId, send_at: sendAt, ...rest } = row;
  const history: MessageView['statuses'] = [{ status: 'scheduled', timestamp: row.created_at }];
  if (state === 'cancelled') history.push({ status: 'cancelled', timestamp: row.updated_at });
  if (state === 'failed') history.push({ status: 'failed', timestamp: row.updated_at, ...(error ? { errors: [error] } : {}) });
  const view = { ...rest, send_at: sendAt, status: state as string, statuses: history };
  if (!sent) return view;
  return { ...view, message_id: messageId!, status: sent.status, updated_at: sent.updated_at, statuses: [...history, ...sent.statuses] };
}

/** 409: DELETE api/Messages/{id} of a message no longer scheduled. */
export class NotScheduledException extends NetworkErrorException {
  constructor(id: string, status: string) {
    super(GatewayErrorCode.Conflict, 409, {
      message: '(#100) The message can no longer be cancelled',
      type: 'OAuthException',
      code: NetworkErrorCode.InvalidParameter,
      details: `id: message ${id} is ${status}; only a scheduled message can be cancelled.`,
    });
  }
}
