import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { GatewayErrorCode, InvalidParameterException, NetworkErrorCode, NetworkErrorException } from '../errors/network-error.exception';
import type { PhoneContext } from '../network/chat-provider';
import { NetworkConfig } from '../network/network.config';
import { NetworkEvents } from '../network/network-events';
import type { SandboxInboundAnswer } from './conversation-answers.dto';
import { INBOUND_MEDIA, type SandboxInboundBody } from './sandbox-inbound.dto';

/** Text PostgreSQL cannot store (NUL, half a surrogate pair), as JSON.stringify escapes it. */
const UNSTORABLE = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;

/**
 * The sandbox playing a customer: the message is notified as the network would notify it and
 * goes the way the network's notifications go (NetworkEvents): taken once per id, stored in its
 * conversation (opening the window, applying opt-out keywords), forwarded to `messages` webhooks.
 */
@Injectable()
export class SandboxInboundService {
  constructor(
    private readonly config: NetworkConfig,
    private readonly sql: Sql,
    private readonly events: NetworkEvents,
  ) {}

  async inject(phone: PhoneContext, body: SandboxInboundBody): Promise<SandboxInboundAnswer> {
    if (this.config.GATEWAY_PROVIDER !== 'sandbox') throw new SandboxOnlyException();
    if (UNSTORABLE.test(JSON.stringify(body))) throw new InvalidParameterException('body', 'holds text that cannot be stored (NUL, a lone surrogate)');
    const waId = body.from.replace(/\D/g, '');
    const id = body.id ?? `wamid.SANDBOX.${randomBytes(18).toString('base64url')}`;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const content = (body as unknown as Record<string, unknown>)[body.type];
    const message: Record<string, unknown> = {
      from: waId,
      id,
      timestamp,
      type: body.type,
      ...(body.context ? { context: body.context } : {}),
      [body.type]: INBOUND_MEDIA.includes(body.type) ? await this.media(phone, body.type, content as { id: string }) : content,
    };
    await this.events.inboundMessages(phone, {
      messaging_product: this.config.NETWORK,
      metadata: { display_phone_number: phone.phone, phone_number_id: phone.phoneId },
      contacts: [{ profile: { name: body.profile_name ?? '' }, wa_id: waId }],
      messages: [message as { id: string }],
    });
    return { messaging_product: this.config.NETWORK, id, wa_id: waId, timestamp };
  }

  /** A media object as the network notifies it: the account's upload, with its type and hash. */
  private async media(phone: PhoneContext, kind: string, given: { id: string }): Promise<Record<string, unknown>> {
    const found = await this.sql.one<{ mime_type: string; sha256: string }>(
      `SELECT mime_type, encode(sha256, 'base64') AS sha256 FROM gateway.media WHERE account_id = $1 AND id = $2`,
      [phone.accountId, given.id],
    );
    if (!found) throw new InvalidParameterException(`${kind}.id`, `${given.id} is not a media id of this account (upload it with POST api/Medias)`);
    return { ...given, mime_type: found.mime_type, sha256: found.sha256 };
  }
}

/** 400: the sandbox's customer is not played against the real network. */
export class SandboxOnlyException extends NetworkErrorException {
  constructor() {
    super(GatewayErrorCode.Unsupported, 400, {
      message: '(#100) Unsupported post request',
      type: 'GraphMethodException',
      code: NetworkErrorCode.InvalidParameter,
      details: 'POST api/Sandbox/Inbound plays a customer in the sandbox only; with GATEWAY_PROVIDER=cloud, customers write through the network.',
    });
  }
}
