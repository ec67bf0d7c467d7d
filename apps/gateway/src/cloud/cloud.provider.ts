import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { errors as undiciErrors, Pool, request, type Dispatcher } from 'undici';
import { NetworkConfig } from '../network/network.config';
import { CloudConfig } from './cloud.config';
import { NetworkErrorCode, UpstreamException, type NetworkError } from '../errors/network-error.exception';
import type {
  ChatProvider,
  CreatedTemplate,
  MediaUpload,
  PhoneContext,
  ProfileFields,
  SendMessage,
  SentMessage,
  TemplateDraft,
} from '../network/chat-provider';

const PROFILE_FIELDS = 'about,address,description,email,profile_picture_url,websites,vertical';

/**
 * The WhatsApp Business Cloud API on the Graph API, over one keep-alive pool.
 * Upstream refusals keep the network's code and message; a timeout or an unreachable
 * network is the network's "temporarily unavailable" (code 2).
 */
@Injectable()
export class CloudProvider implements ChatProvider, OnApplicationShutdown {
  private readonly pool: Pool;
  private readonly version: string;

  constructor(
    private readonly config: CloudConfig,
    private readonly network: NetworkConfig,
  ) {
    const base = new URL(config.CLOUD_API_BASE_URL);
    this.pool = new Pool(base.origin, { connections: config.CLOUD_API_CONNECTIONS, keepAliveTimeout: 30_000, pipelining: 1 });
    this.version = `${base.pathname.replace(/\/+$/, '')}/${config.CLOUD_API_VERSION}`;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
  }

  async send(phone: PhoneContext, message: SendMessage): Promise<SentMessage> {
    const answer = await this.call<{ contacts?: { wa_id?: string }[]; messages?: { id?: string }[] }>(
      phone,
      'POST',
      `${phone.phoneId}/messages`,
      json(message.payload),
    );
    const messageId = answer.messages?.[0]?.id;
    if (typeof messageId !== 'string') throw malformed('the send answer carried no message id');
    return { messageId, waId: answer.contacts?.[0]?.wa_id ?? message.to.replace(/\D/g, '') };
  }

  async markRead(phone: PhoneContext, messageId: string): Promise<void> {
    await this.call(phone, 'POST', `${phone.phoneId}/messages`, json({ messaging_product: this.network.NETWORK, status: 'read', message_id: messageId }));
  }

  async uploadMedia(phone: PhoneContext, upload: MediaUpload): Promise<string> {
    const boundary = `----gateway${randomBytes(12).toString('hex')}`;
    const answer = await this.call<{ id?: string }>(phone, 'POST', `${phone.phoneId}/media`, {
      contentType: `multipart/form-data; boundary=${boundary}`,
      body: Readable.from(multipart(boundary, { messaging_product: this.network.NETWORK, type: upload.mimeType }, upload)),
    });
    if (typeof answer.id !== 'string') throw malformed('the upload answer carried no media id');
    return answer.id;
  }

  /** The network's two steps: the media's URL (`GET /{media-id}`), then its bytes from that URL with the same token. */
  async downloadMedia(phone: PhoneContext, mediaId: string): Promise<Readable> {
    const found = await this.call<{ url?: string }>(phone, 'GET', `${encodeURIComponent(mediaId)}?phone_number_id=${encodeURIComponent(phone.phoneId)}`);
    if (typeof found.url !== 'string' || !/^https?:\/\//.test(found.url)) throw malformed('the media answer carried no url');
    let response: Dispatcher.ResponseData;
    try {
      response = await request(found.url, {
        headers: { authorization: `Bearer ${phone.accessToken}` },
        headersTimeout: this.config.CLOUD_API_TIMEOUT_MS,
        bodyTimeout: this.config.CLOUD_API_TIMEOUT_MS,
      });
    } catch (error) {
      throw unreachable(error);
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return Readable.from(response.body);
    await response.body.dump();
    throw refusal(response.statusCode, null, undefined);
  }

  async discardMedia(): Promise<void> {
    // The network keeps what it received; an id the gateway did not record is never used.
  }

  async createTemplate(phone: PhoneContext, draft: TemplateDraft): Promise<CreatedTemplate> {
    if (!phone.wabaId) throw missingSetup('a WABA id');
    const answer = await this.call<{ id?: string; status?: string; category?: string }>(
      phone,
      'POST',
      `${phone.wabaId}/message_templates`,
      json({
        name: draft.name,
        language: draft.language,
        category: draft.category,
        allow_category_change: draft.allowCategoryChange,
        components: draft.components,
        ...(draft.messageSendTtlSeconds !== undefined ? { message_send_ttl_seconds: draft.messageSendTtlSeconds } : {}),
      }),
    );
    if (typeof answer.id !== 'string') throw malformed('the template answer carried no id');
    return { id: answer.id, status: answer.status ?? 'PENDING', category: answer.category ?? draft.category };
  }

  async getProfile(phone: PhoneContext): Promise<Record<string, unknown>> {
    const answer = await this.call<{ data?: Record<string, unknown>[] }>(phone, 'GET', `${phone.phoneId}/whatsapp_business_profile?fields=${PROFILE_FIELDS}`);
    return answer.data?.[0] ?? { messaging_product: this.network.NETWORK };
  }

  async updateProfile(phone: PhoneContext, fields: ProfileFields): Promise<void> {
    await this.call(phone, 'POST', `${phone.phoneId}/whatsapp_business_profile`, json({ messaging_product: this.network.NETWORK, ...fields }));
  }

  messageStored(): void {
    // The network reports statuses itself, through inbound notifications.
  }

  templateStored(): void {
    // The network reviews templates itself and notifies the result.
  }

  private async call<T>(
    phone: PhoneContext,
    method: 'GET' | 'POST',
    path: string,
    body?: { contentType: string; body: Dispatcher.DispatchOptions['body'] },
  ): Promise<T> {
    if (!phone.accessToken) throw missingSetup('an access token');
    let response: Dispatcher.ResponseData;
    try {
      response = await this.pool.request({
        method,
        path: `${this.version}/${path}`,
        headers: { authorization: `Bearer ${phone.accessToken}`, ...(body ? { 'content-type': body.contentType } : {}) },
        body: body?.body,
        headersTimeout: this.config.CLOUD_API_TIMEOUT_MS,
        bodyTimeout: this.config.CLOUD_API_TIMEOUT_MS,
      });
    } catch (error) {
      throw unreachable(error);
    }
    let parsed: unknown;
    try {
      const text = await response.body.text();
      parsed = text ? JSON.parse(text) : {};
    } catch (error) {
      if (error instanceof SyntaxError) throw malformed(`the network answered ${response.statusCode} with a body that is not JSON`);
      throw unreachable(error);
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return parsed as T;
    throw refusal(response.statusCode, parsed, response.headers['retry-after']);
  }
}

function json(value: unknown): { contentType: string; body: string } {
  // Non-ASCII (emoji in a profile's about, say) goes as \u escapes, as the network asks.
  return {
    contentType: 'application/json',
    body: JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  };
}

async function* multipart(boundary: string, fields: Record<string, string>, upload: MediaUpload): AsyncGenerator<Buffer> {
  for (const [name, value] of Object.entries(fields)) {
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  }
  const filename = upload.filename.replace(/["\r\n]/g, '_');
  yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${upload.mimeType}\r\n\r\n`);
  for await (const chunk of upload.stream) yield chunk as Buffer;
  yield Buffer.from(`\r\n--${boundary}--\r\n`);
}

/** The network's own refusal, its code and message kept; its 5xx become 502 (the gateway is not at fault). */
function refusal(status: number, body: unknown, retryAfter: string | string[] | undefined): UpstreamException {
  const error = (body as { error?: Partial<NetworkError> & { error_data?: { details?: string } } } | null)?.error;
  const network: NetworkError = {
    message: typeof error?.message === 'string' ? error.message : `The network answered ${status}.`,
    type: typeof error?.type === 'string' ? error.type : 'OAuthException',
    code: typeof error?.code === 'number' ? error.code : NetworkErrorCode.Unknown,
    ...(typeof error?.error_subcode === 'number' ? { error_subcode: error.error_subcode } : {}),
    details: typeof error?.error_data?.details === 'string' ? error.error_data.details : `The network answered ${status}.`,
  };
  const headers: Record<string, string> = typeof retryAfter === 'string' ? { 'Retry-After': retryAfter } : {};
  return new UpstreamException(status >= 500 ? 502 : status, network, headers);
}

function unreachable(error: unknown): UpstreamException {
  const timeout = error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError;
  return new UpstreamException(timeout ? 504 : 502, {
    message: 'Service temporarily unavailable',
    type: 'OAuthException',
    code: NetworkErrorCode.Unavailable,
    details: timeout ? 'The chat network did not answer in time.' : 'The chat network could not be reached.',
  });
}

function malformed(details: string): UpstreamException {
  return new UpstreamException(502, { message: 'An unknown error occurred', type: 'OAuthException', code: NetworkErrorCode.Unknown, details });
}

function missingSetup(what: string): UpstreamException {
  return new UpstreamException(400, {
    message: '(#100) Invalid parameter',
    type: 'OAuthException',
    code: NetworkErrorCode.InvalidParameter,
    details: `This business account has no ${what} for the cloud provider; mint its API key with --access-token and --waba-id.`,
  });
}
