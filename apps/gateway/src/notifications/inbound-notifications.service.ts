import { createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ForbiddenException } from '@app/errors';
import { PhonesService } from '../accounts/phones.service';
import { GatewayConfig } from '../config/gateway.config';
import { InvalidParameterException } from '../errors/network-error.exception';
import { NotificationsService, TEMPLATE_STATUS_FIELD } from './notifications.service';

interface Change {
  field?: unknown;
  value?: Record<string, unknown> & { metadata?: { phone_number_id?: unknown }; statuses?: unknown; messages?: unknown };
}

/**
 * The network's notifications to the gateway (cloud provider): the endpoint check, and
 * POSTs signed with the app secret over the exact bytes received (X-Hub-Signature-256).
 */
@Injectable()
export class InboundNotificationsService {
  private readonly logger = new Logger(InboundNotificationsService.name);

  constructor(
    private readonly config: GatewayConfig,
    private readonly phones: PhonesService,
    private readonly notifications: NotificationsService,
  ) {}

  /** Answers the network's `hub.challenge` when the mode and the verify token are right. */
  verify(query: Record<string, unknown>): string {
    const token = this.config.CLOUD_API_VERIFY_TOKEN;
    const given = query['hub.verify_token'];
    if (query['hub.mode'] !== 'subscribe' || !token || typeof given !== 'string' || !sameText(given, token)) {
      throw new ForbiddenException('The verify token does not match.');
    }
    const challenge = query['hub.challenge'];
    if (typeof challenge !== 'string' || !/^[\w-]{1,256}$/.test(challenge)) throw new InvalidParameterException('hub.challenge', 'must be the challenge to echo');
    return challenge;
  }

  /** Checks the signature, then records each change once and forwards it to the phone's webhooks. */
  async receive(raw: Buffer, signature: unknown): Promise<void> {
    const secret = this.config.CLOUD_API_APP_SECRET;
    const expected = secret ? `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}` : null;
    if (!expected || typeof signature !== 'string' || !sameText(signature, expected)) throw new ForbiddenException('X-Hub-Signature-256 does not sign this body.');
    let body: { object?: unknown; entry?: unknown };
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new InvalidParameterException('body', 'must be JSON');
    }
    if (!Array.isArray(body?.entry)) throw new InvalidParameterException('entry', 'must be an array');
    for (const entry of body.entry as { changes?: unknown }[]) {
      for (const change of Array.isArray(entry?.changes) ? (entry.changes as Change[]) : []) await this.change(change);
    }
  }

  private async change(change: Change): Promise<void> {
    const value = change.value;
    if (typeof change.field !== 'string' || !value || typeof value !== 'object') return;
    if (change.field === TEMPLATE_STATUS_FIELD) return this.templateChange(value);
    const phoneId = value.metadata?.phone_number_id;
    const phone = typeof phoneId === 'string' ? await this.phones.byNetworkId(phoneId) : null;
    if (!phone) {
      this.logger.warn({ field: change.field, phoneId }, 'notification for an unknown phone ignored');
      return;
    }
    if (change.field !== 'messages') return this.notifications.otherChange(phone, change.field, value, `${change.field}:${JSON.stringify(value).slice(0, 250)}`);
    for (const status of Array.isArray(value.statuses) ? (value.statuses as Record<string, unknown>[]) : []) {
      if (typeof status.id !== 'string' || typeof status.status !== 'string') continue;
      await this.notifications.messageStatus(phone, {
        messageId: status.id,
        status: status.status.slice(0, 16),
        timestamp: secondsOf(status.timestamp),
        errors: Array.isArray(status.errors) ? status.errors : undefined,
      });
    }
    const messages = Array.isArray(value.messages) ? (value.messages as { id?: unknown }[]).filter((m): m is { id: string } => typeof m?.id === 'string') : [];
    if (messages.length > 0) await this.notifications.inboundMessages(phone, { ...value, messages });
  }

  private async templateChange(value: Record<string, unknown>): Promise<void> {
    const { message_template_id: id, event, reason } = value;
    if ((typeof id !== 'string' && typeof id !== 'number') || typeof event !== 'string') return;
    const owner = await this.phones.byTemplate(String(id));
    if (owner) await this.notifications.templateStatus(owner, String(id), event.slice(0, 16), typeof reason === 'string' && reason !== 'NONE' ? reason.slice(0, 64) : null);
  }
}

/** The network's Unix-seconds timestamp (a string or a number), or now when it holds none. */
function secondsOf(timestamp: unknown): number {
  const seconds = typeof timestamp === 'string' || typeof timestamp === 'number' ? Number(timestamp) : NaN;
  return Number.isFinite(seconds) && seconds > 0 ? Math.floor(seconds) : Math.floor(Date.now() / 1000);
}

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}
