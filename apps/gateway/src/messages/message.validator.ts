import { HTTP_URL, Input, PHONE_NUMBER } from '../common/input.validator';
import { MESSAGE_TYPES, type MediaRef, type SendMessage } from '../network/chat-provider';

export const MEDIA_TYPES = ['image', 'audio', 'video', 'document', 'sticker'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** The network's limits beyond the spec's tables. */
export const MESSAGE_LIMITS = {
  textBody: 4096,
  interactiveBody: 1024,
  headerText: 60,
  footerText: 60,
  replyButtons: 3,
  replyTitle: 20,
  replyId: 256,
  listButton: 20,
  listSections: 10,
  listRows: 10,
  sectionTitle: 24,
  rowId: 200,
  rowTitle: 24,
  rowDescription: 72,
  caption: 1024,
  flowCta: 20,
  templateName: 512,
} as const;

export interface MarkRead {
  kind: 'read';
  messageId: string;
}

export type MessageRequest = SendMessage | MarkRead;

const COMMON_FIELDS = ['messaging_product', 'recipient_type', 'to', 'type', 'context', 'biz_opaque_callback_data'];

/** Checks a `POST api/Messages` body against the spec's tables and the network's limits. */
export function parseMessageRequest(raw: unknown, network: string): MessageRequest {
  const body = Input.body(raw);
  if (body.value === null || typeof body.value !== 'object' || Array.isArray(body.value)) body.fail('must be a JSON object');
  body.at('messaging_product').oneOf([network]);
  if (body.at('status').present) {
    body.object(['messaging_product', 'status', 'message_id']);
    body.at('status').oneOf(['read']);
    return { kind: 'read', messageId: body.at('message_id').string({ max: 512 }) };
  }
  const type = body.at('type').present ? body.at('type').oneOf(MESSAGE_TYPES) : 'text';
  body.object([...COMMON_FIELDS, type]);
  body.at('recipient_type').optionalOneOf(['individual']);
  const to = body.at('to').string({ max: 32, pattern: PHONE_NUMBER, rule: 'must be a phone number in digits with its country code' });
  const context = body.at('context');
  if (context.present) context.object(['message_id']).at('message_id').string({ max: 512 });
  body.at('biz_opaque_callback_data').optionalString({ max: 512 });

  const content = body.at(type);
  const mediaIds: MediaRef[] = [];
  let template: SendMessage['template'];
  switch (type) {
    case 'text':
      text(content);
      break;
    case 'interactive':
      interactive(content, mediaIds);
      break;
    case 'contacts':
      contacts(content);
      break;
    case 'location':
      location(content);
      break;
    case 'reaction':
      reaction(content);
      break;
    case 'template':
      template = templateMessage(content, mediaIds);
      break;
    default:
      media(content, type, mediaIds);
  }
  return { kind: 'send', to, type, payload: { ...(raw as Record<string, unknown>), type }, mediaIds, template };
}

function text(content: Input): void {
  content.object(['body', 'preview_url']);
  content.at('body').string({ max: MESSAGE_LIMITS.textBody });
  content.at('preview_url').optionalBoolean();
}

/** `{id}` or `{link}` (exactly one), plus what the kind allows beside it. */
export function media(content: Input, type: MediaType, mediaIds: MediaRef[]): void {
  const extra = type === 'document' ? ['caption', 'filename'] : type === 'image' || type === 'video' ? ['caption'] : [];
  content.object(['id', 'link', ...extra]);
  mediaReference(content, mediaIds);
  if (extra.includes('caption')) content.at('caption').optionalString({ max: MESSAGE_LIMITS.caption });
  if (extra.includes('filename')) content.at('filename').optionalString({ max: 240 });
}

function mediaReference(content: Input, mediaIds: MediaRef[]): void {
  const id = content.at('id');
  const link = content.at('link');
  if (id.present === link.present) content.fail('must hold exactly one of id or link');
  if (id.present) mediaIds.push({ field: id.path, id: id.string({ max: 128 }) });
  else link.string({ max: 2000, pattern: HTTP_URL, rule: 'must be an http(s) URL' });
}

function interactive(content: Input, mediaIds: MediaRef[]): void {
  const kind = content.at('type').oneOf(['button', 'list', 'flow']);
  content.object(['type', 'header', 'body', 'footer', 'action']);
  const header = content.at('header');
  if (header.present) {
    const allowed = kind === 'button' ? (['text', 'image', 'video', 'document'] as const) : (['text'] as const);
    const headerType = header.at('type').oneOf(allowed);
    header.object(['type', headerType]);
    if (headerType === 'text') header.at('text').string({ max: MESSAGE_LIMITS.headerText });
    else media(header.at(headerType), headerType, mediaIds);
  }
  content.at('body').object(['text']).at('text').string({ max: MESSAGE_LIMITS.interactiveBody });
  const footer = content.at('footer');
  if (footer.present) footer.object(['text']).at('text').string({ max: MESSAGE_LIMITS.footerText });
  const action = content.at('action');
  if (kind === 'button') replyButtons(action);
  else if (kind === 'list') list(action);
  else flow(action);
}

function replyButtons(action: Input): void {
  action.object(['buttons']);
  const ids = new Set<string>();
  const titles = new Set<string>();
  for (const button of action.at('buttons').array(1, MESSAGE_LIMITS.replyButtons)) {
    button.object(['type', 'reply']);
    button.at('type').oneOf(['reply']);
    const reply = button.at('reply').object(['id', 'title']);
    const id = reply.at('id').string({ max: MESSAGE_LIMITS.replyId });
    const title = reply.at('title').string({ max: MESSAGE_LIMITS.replyTitle });
    if (ids.has(id)) reply.at('id').fail('must be unique among the buttons');
    if (titles.has(title)) reply.at('title').fail('must be unique among the buttons');
    ids.add(id);
    titles.add(title);
  }
}

function list(action: Input): void {
  action.object(['button', 'sections']);
  action.at('button').string({ max: MESSAGE_LIMITS.listButton });
  const sections = action.at('sections').array(1, MESSAGE_LIMITS.listSections);
  const ids = new Set<string>();
  let rows = 0;
  for (const section of sections) {
    section.object(['title', 'rows']);
    if (sections.length > 1) section.at('title').string({ max: MESSAGE_LIMITS.sectionTitle });
    else section.at('title').optionalString({ max: MESSAGE_LIMITS.sectionTitle });
    for (const row of section.at('rows').array(1, MESSAGE_LIMITS.listRows)) {
      row.object(['id', 'title', 'description']);
      const id = row.at('id').string({ max: MESSAGE_LIMITS.rowId });
      row.at('title').string({ max: MESSAGE_LIMITS.rowTitle });
      row.at('description').optionalString({ max: MESSAGE_LIMITS.rowDescription });
      if (ids.has(id)) row.at('id').fail('must be unique among the rows');
      ids.add(id);
      if (++rows > MESSAGE_LIMITS.listRows) row.fail(`a list holds at most ${MESSAGE_LIMITS.listRows} rows in all its sections`);
    }
  }
}

function flow(action: Input): void {
  action.object(['name', 'parameters']);
  action.at('name').oneOf(['flow']);
  const p = action
    .at('parameters')
    .object(['flow_message_version', 'flow_token', 'flow_id', 'flow_name', 'flow_cta', 'flow_action', 'flow_action_payload', 'mode']);
  p.at('flow_message_version').oneOf(['3']);
  p.at('flow_token').optionalString({ max: 1024 });
  if (p.at('flow_id').present === p.at('flow_name').present) p.fail('must hold exactly one of flow_id or flow_name');
  p.at('flow_id').optionalString({ max: 64 });
  p.at('flow_name').optionalString({ max: 200 });
  p.at('flow_cta').string({ max: MESSAGE_LIMITS.flowCta });
  p.at('mode').optionalOneOf(['draft', 'published']);
  const flowAction = p.at('flow_action').present ? p.at('flow_action').oneOf(['navigate', 'data_exchange']) : 'navigate';
  const payload = p.at('flow_action_payload');
  if (flowAction === 'navigate') {
    payload.object(['screen', 'data']);
    payload.at('screen').string({ max: 200 });
    const data = payload.at('data');
    if (data.present && (typeof data.value !== 'object' || Array.isArray(data.value))) data.fail('must be an object');
  } else payload.absent('is only used with flow_action navigate');
}

const CONTACT_TYPES = ['HOME', 'WORK'] as const;

function contacts(content: Input): void {
  for (const contact of content.array(1, 257)) {
    contact.object(['addresses', 'birthday', 'emails', 'name', 'org', 'phones', 'urls']);
    for (const address of contact.at('addresses').optionalArray(0, 20)) {
      address.object(['street', 'city', 'state', 'zip', 'country', 'country_code', 'type']);
      for (const field of ['street', 'city', 'state', 'zip', 'country']) address.at(field).optionalString({ max: 256 });
      address.at('country_code').optionalString({ max: 2, min: 2, pattern: /^[A-Za-z]{2}$/, rule: 'must be a two-letter ISO 3166 code' });
      address.at('type').optionalOneOf(CONTACT_TYPES);
    }
    const birthday = contact.at('birthday').optionalString({ pattern: /^\d{4}-\d{2}-\d{2}$/, rule: 'must be a date YYYY-MM-DD' });
    if (birthday !== undefined && Number.isNaN(Date.parse(`${birthday}T00:00:00Z`))) contact.at('birthday').fail('must be a real date YYYY-MM-DD');
    for (const email of contact.at('emails').optionalArray(0, 20)) {
      email.object(['email', 'type']);
      email.at('email').string({ max: 320, pattern: /^[^\s@]+@[^\s@]+$/, rule: 'must be an e-mail address' });
      email.at('type').optionalOneOf(CONTACT_TYPES);
    }
    const name = contact.at('name').object(['formatted_name', 'first_name', 'last_name', 'middle_name', 'suffix', 'prefix']);
    name.at('formatted_name').string({ max: 512 });
    const parts = ['first_name', 'last_name', 'middle_name', 'suffix', 'prefix'];
    for (const part of parts) name.at(part).optionalString({ max: 256 });
    if (!parts.some((part) => name.at(part).present))
      name.fail('needs at least one of first_name, last_name, middle_name, suffix or prefix besides formatted_name');
    const org = contact.at('org');
    if (org.present) {
      org.object(['company', 'department', 'title']);
      for (const field of ['company', 'department', 'title']) org.at(field).optionalString({ max: 256 });
    }
    for (const phone of contact.at('phones').optionalArray(0, 20)) {
      phone.object(['phone', 'type', 'wa_id']);
      phone.at('phone').string({ max: 32, pattern: PHONE_NUMBER, rule: 'must be a phone number' });
      phone.at('type').optionalString({ max: 32 });
      phone.at('wa_id').optionalString({ max: 32, pattern: /^\d+$/, rule: 'must be digits' });
    }
    for (const url of contact.at('urls').optionalArray(0, 20)) {
      url.object(['url', 'type']);
      url.at('url').string({ max: 2000, pattern: HTTP_URL, rule: 'must be an http(s) URL' });
      url.at('type').optionalOneOf(CONTACT_TYPES);
    }
  }
}

function location(content: Input): void {
  content.object(['latitude', 'longitude', 'name', 'address']);
  content.at('latitude').number(-90, 90);
  content.at('longitude').number(-180, 180);
  content.at('name').optionalString({ max: 1000 });
  content.at('address').optionalString({ max: 1000 });
}

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

function reaction(content: Input): void {
  content.object(['message_id', 'emoji']);
  content.at('message_id').string({ max: 512 });
  const emoji = content.at('emoji');
  // An empty emoji removes the reaction, as on the network.
  const value = emoji.string({ min: 0, max: 16 });
  if ([...segmenter.segment(value)].length > 1) emoji.fail('must be one emoji, or empty to remove the reaction');
}

const SUB_TYPES = ['url', 'quick_reply', 'copy_code', 'catalog', 'mpm', 'flow'] as const;
const BUTTON_PARAMETER: Record<(typeof SUB_TYPES)[number], 'text' | 'payload' | 'coupon_code' | 'action'> = {
  url: 'text',
  quick_reply: 'payload',
  copy_code: 'coupon_code',
  catalog: 'action',
  mpm: 'action',
  flow: 'action',
};

function templateMessage(content: Input, mediaIds: MediaRef[]): SendMessage['template'] {
  content.object(['name', 'language', 'components', 'namespace']);
  const name = content.at('name').string({ max: MESSAGE_LIMITS.templateName });
  content.at('namespace').optionalString({ max: 256 });
  const language = content.at('language').object(['code', 'policy']);
  const code = language.at('code').string({ max: 16, pattern: /^[a-z]{2,3}([_-][A-Za-z0-9]{2,8})*$/, rule: 'must be a locale code such as en_US' });
  language.at('policy').optionalOneOf(['deterministic']);
  let bodyParameters = 0;
  for (const component of content.at('components').optionalArray(0, 20)) {
    const type = component.at('type').oneOf(['header', 'body', 'button', 'limited_time_offer', 'carousel'], { ignoreCase: true });
    if (type === 'body') bodyParameters = templateComponent(component, type, mediaIds);
    else templateComponent(component, type, mediaIds);
  }
  return { name, language: code, bodyParameters };
}

/** Checks one send component; returns how many parameters it carries. */
function templateComponent(component: Input, type: 'header' | 'body' | 'button' | 'limited_time_offer' | 'carousel', mediaIds: MediaRef[]): number {
  switch (type) {
    case 'header': {
      component.object(['type', 'parameters']);
      const parameters = component.at('parameters').array(0, 1);
      for (const p of parameters) {
        const kind = p.at('type').oneOf(['text', 'image', 'video', 'document', 'location'], { ignoreCase: true });
        p.object(['type', kind]);
        if (kind === 'text') p.at('text').string({ max: MESSAGE_LIMITS.headerText });
        else if (kind === 'location') location(p.at('location'));
        else media(p.at(kind), kind, mediaIds);
      }
      return parameters.length;
    }
    case 'body': {
      component.object(['type', 'parameters']);
      const parameters = component.at('parameters').optionalArray(0, 100);
      for (const p of parameters) {
        p.object(['type', 'text']);
        p.at('type').oneOf(['text'], { ignoreCase: true });
        p.at('text').string({ max: 32_768 });
      }
      return parameters.length;
    }
    case 'button': {
      component.object(['type', 'sub_type', 'index', 'parameters']);
      const subType = component.at('sub_type').oneOf(SUB_TYPES, { ignoreCase: true });
      const index = component.at('index');
      if (
        typeof index.value === 'string'
          ? !/^\d$/.test(index.value)
          : !(Number.isInteger(index.value) && (index.value as number) >= 0 && (index.value as number) <= 9)
      ) {
        index.fail('must be a button position from 0 to 9, as a string or an integer');
      }
      const field = BUTTON_PARAMETER[subType];
      for (const p of component.at('parameters').array(subType === 'quick_reply' || subType === 'url' || subType === 'copy_code' ? 1 : 0, 1)) {
        p.object(['type', field]);
        p.at('type').oneOf([field], { ignoreCase: true });
        if (field === 'action') buttonAction(p.at('action'), subType);
        else p.at(field).string({ max: field === 'coupon_code' ? 15 : 2000 });
      }
      return 0;
    }
    case 'limited_time_offer': {
      component.object(['type', 'parameters']);
      for (const p of component.at('parameters').array(1, 1)) {
        p.object(['type', 'limited_time_offer']);
        p.at('type').oneOf(['limited_time_offer'], { ignoreCase: true });
        p.at('limited_time_offer').object(['expiration_time_ms']).at('expiration_time_ms').integer(0, Number.MAX_SAFE_INTEGER);
      }
      return 0;
    }
    case 'carousel': {
      component.object(['type', 'cards']);
      const seen = new Set<number>();
      for (const card of component.at('cards').array(1, 10)) {
        card.object(['card_index', 'components']);
        const cardIndex = card.at('card_index').integer(0, 9);
        if (seen.has(cardIndex)) card.at('card_index').fail('must be unique among the cards');
        seen.add(cardIndex);
        for (const inner of card.at('components').array(1, 5)) {
          const innerType = inner.at('type').oneOf(['header', 'body', 'button'], { ignoreCase: true });
          if (innerType === 'header') {
            for (const p of inner.at('parameters').array(1, 1)) p.at('type').oneOf(['image', 'video'], { ignoreCase: true });
          }
          templateComponent(inner, innerType, mediaIds);
        }
      }
      return 0;
    }
  }
}

function buttonAction(action: Input, subType: (typeof SUB_TYPES)[number]): void {
  if (subType === 'catalog') {
    action.object(['thumbnail_product_retailer_id']);
    action.at('thumbnail_product_retailer_id').optionalString({ max: 256 });
  } else if (subType === 'mpm') {
    action.object(['thumbnail_product_retailer_id', 'sections']);
    action.at('thumbnail_product_retailer_id').string({ max: 256 });
    let items = 0;
    for (const section of action.at('sections').array(1, 10)) {
      section.object(['title', 'product_items']);
      section.at('title').string({ max: 24 });
      for (const item of section.at('product_items').array(1, 30)) {
        item.object(['product_retailer_id']).at('product_retailer_id').string({ max: 256 });
        if (++items > 30) item.fail('a multi-product message holds at most 30 products');
      }
    }
  } else if (subType === 'flow') {
    action.object(['flow_token', 'flow_action_data']);
    action.at('flow_token').optionalString({ max: 1024 });
    const data = action.at('flow_action_data');
    if (data.present && (typeof data.value !== 'object' || Array.isArray(data.value))) data.fail('must be an object');
  } else action.fail(`is not used by sub_type ${subType}`);
}
