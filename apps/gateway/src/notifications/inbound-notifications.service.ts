import { createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AccessDeniedException } from '@app/errors';
import { PhonesService } from '../accounts/phones.service';
import { NotificationsConfig } from './notifications.config';
import { InvalidParameterException } from '../errors/network-error.exception';
import type { PhoneContext } from '../network/chat-provider';
import { checkInboundNotification, type InboundChange } from './inbound-notification.validator';
import { NotificationsService } from './notifications.service';
import type { VerifyQuery } from './verify-query.dto';

/** Skipped parts logged one by one per notification; the rest are counted. */
const LOGGED_SKIPS = 20;

/**
 * The network's notifications to the gateway (cloud provider): the endpoint check, and
 * POSTs signed with the app secret over the exact bytes received (X-Hub-Signature-256).
 */
@Injectable()
export class InboundNotificationsService {
  private readonly logger = new Logger(InboundNotificationsService.name);

  constructor(
    private readonly config: NotificationsConfig,
    private readonly phones: PhonesService,
    private readonly notifications: NotificationsService,
  ) {}

  /** Answers the network's `hub.challenge` when the mode and the verify token are right. */
  verify(query: VerifyQuery): string {
    const token = this.config.CLOUD_API_VERIFY_TOKEN;
    const given = query['hub.verify_token'];
    if (query['hub.mode'] !== 'subscribe' || !token || given === undefined || !sameText(given, token)) {
      throw new AccessDeniedException('The verify token does not match.');
    }
    return query['hub.challenge'];
  }

  /**
   * Checks the signature, then every field; records each usable change once and forwards it to
   * its phone's webhooks. Malformed parts are logged and skipped: the network resends a whole
   * body on 5xx, so one bad entry must not hold back the others.
   */
  async receive(raw: Buffer, signature: unknown): Promise<void> {
    const secret = this.config.CLOUD_API_APP_SECRET;
    const expected = secret ? `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}` : null;
    if (!expected || typeof signature !== 'string' || !sameText(signature, expected))
      throw new AccessDeniedException('X-Hub-Signature-256 does not sign this body.');
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new InvalidParameterException('body', 'must be JSON');
    }
    const { changes, skipped } = checkInboundNotification(body);
    for (const part of skipped.slice(0, LOGGED_SKIPS)) this.logger.warn(part, 'malformed notification part skipped');
    if (skipped.length > LOGGED_SKIPS) this.logger.warn({ count: skipped.length - LOGGED_SKIPS }, 'more malformed notification parts skipped');
    const phones = new Map<string, Promise<PhoneContext | null>>();
    const phoneOf = (phoneId: string) => phones.get(phoneId) ?? phones.set(phoneId, this.phones.byNetworkId(phoneId)).get(phoneId)!;
    for (const change of changes) await this.apply(change, phoneOf);
  }

  private async apply(change: InboundChange, phoneOf: (phoneId: string) => Promise<PhoneContext | null>): Promise<void> {
    if (change.kind === 'template') return this.templateChange(change);
    const phone = await phoneOf(change.phoneId);
    if (!phone) {
      this.logger.warn({ path: change.path, phoneId: change.phoneId }, 'notification for an unknown phone ignored');
      return;
    }
    if (change.kind === 'other') return this.notifications.otherChange(phone, change.field, change.value, change.dedupKey);
    if (change.kind === 'messages') return this.notifications.inboundMessages(phone, change.value);
    for (const { path, ...status } of change.statuses) {
      // Only the phone the notification names: a status naming another phone's message changes nothing.
      const outcome = await this.notifications.messageStatus(phone, status);
      if (outcome === 'unknown') this.logger.warn({ path, phoneId: phone.phoneId }, 'status for a message this phone did not send ignored');
    }
  }

  /** Applied only when the template belongs to the business account the notification comes from. */
  private async templateChange(change: Extract<InboundChange, { kind: 'template' }>): Promise<void> {
    const owner = await this.phones.byTemplate(change.templateId);
    if (!owner || owner.wabaId !== change.wabaId) {
      this.logger.warn({ path: change.path, wabaId: change.wabaId }, "template status for a template not of the notification's business account ignored");
      return;
    }
    await this.notifications.templateStatus(owner, change.templateId, change.event, change.reason);
  }
}

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}
