import { Input } from '../common/input.validator';

export interface WebhookRegistration {
  phone?: string;
  types?: string[];
  endpoint?: string;
  headers?: Record<string, string>;
}

/** Headers the gateway sets itself on every delivery; a webhook may not override them. */
const RESERVED_HEADERS = new Set(['host', 'content-type', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-authorization', 'user-agent']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/**
 * Checks a webhook registration body. On creation `endpoint` and `types` are required;
 * an update may leave any field out (it is kept).
 */
export function parseWebhookRegistration(raw: unknown, options: { creating: boolean; acceptedTypes: readonly string[] }): WebhookRegistration {
  const body = Input.body(raw).object(options.creating ? ['phone', 'types', 'headers', 'endpoint'] : ['phone', 'types', 'meta_version', 'headers', 'endpoint']);
  const result: WebhookRegistration = {};
  result.phone = body.at('phone').optionalString({ max: 32, pattern: /^\+?\d{6,20}$/, rule: 'must be the business phone number in digits' })?.replace(/^\+/, '');
  const types = body.at('types');
  if (options.creating || types.present) {
    const list = types.array(1, options.acceptedTypes.length).map((t) => t.oneOf(options.acceptedTypes));
    if (new Set(list).size !== list.length) types.fail('must not repeat a type');
    result.types = list;
  }
  const endpoint = body.at('endpoint');
  if (options.creating || endpoint.present) {
    result.endpoint = endpoint.string({ max: 2000, pattern: /^https:\/\/[^\s]+$/i, rule: 'must be an https URL (the receiver needs a valid TLS certificate)' });
  }
  const headers = body.at('headers');
  if (headers.present) {
    if (typeof headers.value !== 'object' || Array.isArray(headers.value)) headers.fail('must be an object of header names to values');
    const entries = Object.keys(headers.value as object);
    if (entries.length > 20) headers.fail('may hold at most 20 headers');
    const out: Record<string, string> = {};
    for (const name of entries) {
      const field = headers.at(name);
      if (!TOKEN.test(name)) field.fail('is not a valid header name');
      if (RESERVED_HEADERS.has(name.toLowerCase()) || name.toLowerCase().startsWith('webhook-')) field.fail('is set by the gateway and cannot be overridden');
      out[name] = field.string({ min: 0, max: 1024, pattern: /^[\t\x20-\x7e\x80-\xff]*$/, rule: 'must be a header value without control characters' });
    }
    result.headers = out;
  } else if (options.creating) result.headers = {};
  body.at('meta_version').optionalOneOf(['LASTEST']);
  return result;
}
