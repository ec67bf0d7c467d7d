import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import {
  CheckFirst,
  fieldOf,
  freeForm,
  HTTP_URL,
  list,
  numberIn,
  oneOf,
  ifPresent,
  optional,
  partRefusal,
  PHONE_NUMBER,
  present,
  Rule,
  shape,
  text,
  variant,
  wholeRefusal,
  boolean,
  type Check,
  type DtoClass,
  type Refusal,
  type TextRules,
} from '../common/rule.decorator';

/**
 * The content objects of POST api/Messages, one DTO per kind and part. Each is checked by `shape` (its @Rule
 * checks in declaration order, the network's order), and documented by its @ApiProperty.
 */

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
  messageId: 512,
  mediaId: 128,
  link: 2000,
  filename: 240,
  contacts: 257,
  contactItems: 20,
  contactField: 256,
  place: 1000,
  emoji: 16,
  templateComponents: 20,
  bodyParameters: 100,
  parameterText: 32_768,
  productSections: 10,
  products: 30,
  cards: 10,
  cardComponents: 5,
} as const;

const required =
  (rules: TextRules): Check =>
  (v) =>
    text(v, rules);
const optionalText =
  (rules: TextRules): Check =>
  (v) =>
    optional(v, (x) => text(x, rules));
const optionalOneOf =
  (values: readonly string[]): Check =>
  (v) =>
    optional(v, (x) => oneOf(x, values));
/** Only to declare a field a `variant` has already checked (its `type`). */
const checked: Check = () => null;

const LINK: TextRules = { max: MESSAGE_LIMITS.link, pattern: HTTP_URL, rule: 'must be an http(s) URL' };

export class TextContent {
  @ApiProperty({ maxLength: MESSAGE_LIMITS.textBody })
  @Rule('textBody', required({ max: MESSAGE_LIMITS.textBody }))
  body!: string;

  @ApiPropertyOptional()
  @Rule('previewUrl', (v) => optional(v, boolean))
  preview_url?: boolean;
}

/** `{id}` or `{link}`, exactly one (checked first, as the network does). */
export class AudioContent {
  @ApiPropertyOptional({ maxLength: MESSAGE_LIMITS.mediaId, description: 'From POST api/Medias; exactly one of `id` or `link`.' })
  @Rule('mediaId', (v, media) =>
    present(v) === present(media.link) ? wholeRefusal('must hold exactly one of id or link') : ifPresent(v, (x) => text(x, { max: MESSAGE_LIMITS.mediaId })),
  )
  id?: string;

  @ApiPropertyOptional({ maxLength: MESSAGE_LIMITS.link, format: 'uri' })
  @Rule('mediaLink', (v) => ifPresent(v, (x) => text(x, LINK)))
  link?: string;
}

export class StickerContent extends AudioContent {}

export class ImageContent extends AudioContent {
  @ApiPropertyOptional({ maxLength: MESSAGE_LIMITS.caption })
  @Rule('caption', optionalText({ max: MESSAGE_LIMITS.caption }))
  caption?: string;
}

export class VideoContent extends ImageContent {}

export class DocumentContent extends ImageContent {
  @ApiPropertyOptional({ maxLength: MESSAGE_LIMITS.filename })
  @Rule('filename', optionalText({ max: MESSAGE_LIMITS.filename }))
  filename?: string;
}

export const MEDIA_CONTENT: Record<MediaType, DtoClass> = {
  image: ImageContent,
  audio: AudioContent,
  video: VideoContent,
  document: DocumentContent,
  sticker: StickerContent,
};

export class LocationContent {
  @ApiProperty({ minimum: -90, maximum: 90 })
  @Rule('latitude', (v) => numberIn(v, -90, 90))
  latitude!: number;

  @ApiProperty({ minimum: -180, maximum: 180 })
  @Rule('longitude', (v) => numberIn(v, -180, 180))
  longitude!: number;

  @ApiPropertyOptional({ maxLength: MESSAGE_LIMITS.place })
  @Rule('placeName', optionalText({ max: MESSAGE_LIMITS.place }))
  name?: string;

  @ApiPropertyOptional({ maxLength: MESSAGE_LIMITS.place })
  @Rule('placeAddress', optionalText({ max: MESSAGE_LIMITS.place }))
  address?: string;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

export class ReactionContent {
  @ApiProperty({ maxLength: MESSAGE_LIMITS.messageId })
  @Rule('reactedMessage', required({ max: MESSAGE_LIMITS.messageId }))
  message_id!: string;

  @ApiProperty({ maxLength: MESSAGE_LIMITS.emoji, description: 'One emoji, or empty to remove the reaction.' })
  // An empty emoji removes the reaction, as on the network.
  @Rule(
    'emoji',
    (v) =>
      text(v, { min: 0, max: MESSAGE_LIMITS.emoji }) ??
      ([...segmenter.segment(v as string)].length > 1 ? 'must be one emoji, or empty to remove the reaction' : null),
  )
  emoji!: string;
}

/* ---- contacts ---- */

const CONTACT_TYPES = ['HOME', 'WORK'] as const;
const contactField = optionalText({ max: MESSAGE_LIMITS.contactField });
const items =
  (cls: DtoClass): Check =>
  (v) =>
    ifPresent(v, (x) => list(x, 0, MESSAGE_LIMITS.contactItems, (item) => shape(item, cls)));

export class ContactAddress {
  @ApiPropertyOptional() @Rule('street', contactField) street?: string;
  @ApiPropertyOptional() @Rule('city', contactField) city?: string;
  @ApiPropertyOptional() @Rule('state', contactField) state?: string;
  @ApiPropertyOptional() @Rule('zip', contactField) zip?: string;
  @ApiPropertyOptional() @Rule('country', contactField) country?: string;

  @ApiPropertyOptional({ minLength: 2, maxLength: 2 })
  @Rule('countryCode', optionalText({ max: 2, min: 2, pattern: /^[A-Za-z]{2}$/, rule: 'must be a two-letter ISO 3166 code' }))
  country_code?: string;

  @ApiPropertyOptional({ enum: CONTACT_TYPES }) @Rule('contactType', optionalOneOf(CONTACT_TYPES)) type?: string;
}

export class ContactEmail {
  @ApiProperty()
  @Rule('email', required({ max: 320, pattern: /^[^\s@]+@[^\s@]+$/, rule: 'must be an e-mail address' }))
  email!: string;

  @ApiPropertyOptional({ enum: CONTACT_TYPES }) @Rule('contactType', optionalOneOf(CONTACT_TYPES)) type?: string;
}

const NAME_PARTS = ['first_name', 'last_name', 'middle_name', 'suffix', 'prefix'];

export class ContactName {
  @ApiProperty({ maxLength: 512 }) @Rule('formattedName', required({ max: 512 })) formatted_name!: string;
  @ApiPropertyOptional() @Rule('firstName', contactField) first_name?: string;
  @ApiPropertyOptional() @Rule('lastName', contactField) last_name?: string;
  @ApiPropertyOptional() @Rule('middleName', contactField) middle_name?: string;
  @ApiPropertyOptional() @Rule('suffix', contactField) suffix?: string;

  @ApiPropertyOptional()
  @Rule(
    'prefix',
    (v, name) =>
      contactField(v, name) ??
      (NAME_PARTS.some((part) => present(name[part]))
        ? null
        : wholeRefusal('needs at least one of first_name, last_name, middle_name, suffix or prefix besides formatted_name')),
  )
  prefix?: string;
}

export class ContactOrg {
  @ApiPropertyOptional() @Rule('company', contactField) company?: string;
  @ApiPropertyOptional() @Rule('department', contactField) department?: string;
  @ApiPropertyOptional() @Rule('title', contactField) title?: string;
}

export class ContactPhone {
  @ApiProperty() @Rule('phone', required({ max: 32, pattern: PHONE_NUMBER, rule: 'must be a phone number' })) phone!: string;
  @ApiPropertyOptional() @Rule('phoneType', optionalText({ max: 32 })) type?: string;
  @ApiPropertyOptional() @Rule('waId', optionalText({ max: 32, pattern: /^\d+$/, rule: 'must be digits' })) wa_id?: string;
}

export class ContactUrl {
  @ApiProperty({ format: 'uri' }) @Rule('url', required(LINK)) url!: string;
  @ApiPropertyOptional({ enum: CONTACT_TYPES }) @Rule('contactType', optionalOneOf(CONTACT_TYPES)) type?: string;
}

export class Contact {
  @ApiPropertyOptional({ type: () => [ContactAddress], maxItems: MESSAGE_LIMITS.contactItems })
  @Rule('addresses', items(ContactAddress))
  addresses?: ContactAddress[];

  @ApiPropertyOptional({ format: 'date' })
  @Rule('birthday', (v) =>
    optional(
      v,
      (x) =>
        text(x, { pattern: /^\d{4}-\d{2}-\d{2}$/, rule: 'must be a date YYYY-MM-DD' }) ??
        (Number.isNaN(Date.parse(`${x as string}T00:00:00Z`)) ? 'must be a real date YYYY-MM-DD' : null),
    ),
  )
  birthday?: string;

  @ApiPropertyOptional({ type: () => [ContactEmail], maxItems: MESSAGE_LIMITS.contactItems })
  @Rule('emails', items(ContactEmail))
  emails?: ContactEmail[];

  @ApiProperty({ type: () => ContactName })
  @Rule('contactName', (v) => shape(v, ContactName))
  name!: ContactName;

  @ApiPropertyOptional({ type: () => ContactOrg })
  @Rule('org', (v) => ifPresent(v, (x) => shape(x, ContactOrg)))
  org?: ContactOrg;

  @ApiPropertyOptional({ type: () => [ContactPhone], maxItems: MESSAGE_LIMITS.contactItems })
  @Rule('phones', items(ContactPhone))
  phones?: ContactPhone[];

  @ApiPropertyOptional({ type: () => [ContactUrl], maxItems: MESSAGE_LIMITS.contactItems })
  @Rule('urls', items(ContactUrl))
  urls?: ContactUrl[];
}

export const contactsRefusal = (v: unknown) => list(v, 1, MESSAGE_LIMITS.contacts, (contact) => shape(contact, Contact));

/* ---- interactive ---- */

export class HeaderText {
  @ApiProperty({ enum: ['text'] }) @Rule('headerType', checked) type!: string;
  @ApiProperty({ maxLength: MESSAGE_LIMITS.headerText }) @Rule('headerText', required({ max: MESSAGE_LIMITS.headerText })) text!: string;
}

export class HeaderImage {
  @ApiProperty({ enum: ['image'] }) @Rule('headerType', checked) type!: string;
  @ApiProperty({ type: () => ImageContent }) @Rule('headerImage', (v) => shape(v, ImageContent)) image!: ImageContent;
}

export class HeaderVideo {
  @ApiProperty({ enum: ['video'] }) @Rule('headerType', checked) type!: string;
  @ApiProperty({ type: () => VideoContent }) @Rule('headerVideo', (v) => shape(v, VideoContent)) video!: VideoContent;
}

export class HeaderDocument {
  @ApiProperty({ enum: ['document'] }) @Rule('headerType', checked) type!: string;
  @ApiProperty({ type: () => DocumentContent }) @Rule('headerDocument', (v) => shape(v, DocumentContent)) document!: DocumentContent;
}

export class InteractiveText {
  @ApiProperty({ maxLength: MESSAGE_LIMITS.interactiveBody }) @Rule('interactiveText', required({ max: MESSAGE_LIMITS.interactiveBody })) text!: string;
}

export class InteractiveFooter {
  @ApiProperty({ maxLength: MESSAGE_LIMITS.footerText }) @Rule('footerText', required({ max: MESSAGE_LIMITS.footerText })) text!: string;
}

export class Reply {
  @ApiProperty({ maxLength: MESSAGE_LIMITS.replyId }) @Rule('replyId', required({ max: MESSAGE_LIMITS.replyId })) id!: string;
  @ApiProperty({ maxLength: MESSAGE_LIMITS.replyTitle }) @Rule('replyTitle', required({ max: MESSAGE_LIMITS.replyTitle })) title!: string;
}

export class ReplyButton {
  @ApiProperty({ enum: ['reply'] }) @Rule('buttonType', (v) => oneOf(v, ['reply'])) type!: string;
  @ApiProperty({ type: () => Reply }) @Rule('reply', (v) => shape(v, Reply)) reply!: Reply;
}

export class ButtonAction {
  @ApiProperty({ type: () => [ReplyButton], minItems: 1, maxItems: MESSAGE_LIMITS.replyButtons, description: 'Ids and titles unique.' })
  @Rule('replyButtons', (v) => {
    const ids = new Set<unknown>();
    const titles = new Set<unknown>();
    return list(v, 1, MESSAGE_LIMITS.replyButtons, (button) => {
      const refusal = shape(button, ReplyButton);
      if (refusal !== null) return refusal;
      const reply = fieldOf(button, 'reply') as Reply;
      if (ids.has(reply.id)) return partRefusal('reply', partRefusal('id', 'must be unique among the buttons'));
      if (titles.has(reply.title)) return partRefusal('reply', partRefusal('title', 'must be unique among the buttons'));
      ids.add(reply.id);
      titles.add(reply.title);
      return null;
    });
  })
  buttons!: ReplyButton[];
}

/** The rows of a list's sections seen so far: ids are unique and rows counted across sections. */
let listInProgress: { sections: number; ids: Set<unknown>; rows: number } | undefined;

export class ListRow {
  @ApiProperty({ maxLength: MESSAGE_LIMITS.rowId }) @Rule('rowId', required({ max: MESSAGE_LIMITS.rowId })) id!: string;
  @ApiProperty({ maxLength: MESSAGE_LIMITS.rowTitle }) @Rule('rowTitle', required({ max: MESSAGE_LIMITS.rowTitle })) title!: string;
  @ApiPropertyOptional({ maxLength: MESSAGE_LIMITS.rowDescription })
  @Rule('rowDescription', optionalText({ max: MESSAGE_LIMITS.rowDescription }))
  description?: string;
}

export class ListSection {
  @ApiPropertyOptional({ maxLength: MESSAGE_LIMITS.sectionTitle, description: 'Required when the list has more than one section.' })
  @Rule('sectionTitle', (v) =>
    (listInProgress?.sections ?? 1) > 1 ? text(v, { max: MESSAGE_LIMITS.sectionTitle }) : optionalText({ max: MESSAGE_LIMITS.sectionTitle })(v, {}),
  )
  title?: string;

  @ApiProperty({
    type: () => [ListRow],
    minItems: 1,
    maxItems: MESSAGE_LIMITS.listRows,
    description: `Ids unique; at most ${MESSAGE_LIMITS.listRows} rows in all.`,
  })
  @Rule('rows', (v) =>
    list(v, 1, MESSAGE_LIMITS.listRows, (row) => {
      const refusal = shape(row, ListRow);
      if (refusal !== null || !listInProgress) return refusal;
      const id = fieldOf(row, 'id');
      if (listInProgress.ids.has(id)) return partRefusal('id', 'must be unique among the rows');
      listInProgress.ids.add(id);
      return ++listInProgress.rows > MESSAGE_LIMITS.listRows ? `a list holds at most ${MESSAGE_LIMITS.listRows} rows in all its sections` : null;
    }),
  )
  rows!: ListRow[];
}

export class ListAction {
  @ApiProperty({ maxLength: MESSAGE_LIMITS.listButton }) @Rule('listButton', required({ max: MESSAGE_LIMITS.listButton })) button!: string;

  @ApiProperty({ type: () => [ListSection], minItems: 1, maxItems: MESSAGE_LIMITS.listSections })
  @Rule('sections', (v) => {
    listInProgress = { sections: Array.isArray(v) ? v.length : 0, ids: new Set(), rows: 0 };
    try {
      return list(v, 1, MESSAGE_LIMITS.listSections, (section) => shape(section, ListSection));
    } finally {
      listInProgress = undefined;
    }
  })
  sections!: ListSection[];
}

export class FlowPayload {
  @ApiProperty({ maxLength: 200 }) @Rule('screen', required({ max: 200 })) screen!: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @Rule('flowData', freeForm) data?: Record<string, unknown>;
}

export class FlowParameters {
  @ApiProperty({ enum: ['3'] }) @Rule('flowMessageVersion', (v) => oneOf(v, ['3'])) flow_message_version!: string;
  @ApiPropertyOptional({ maxLength: 1024 }) @Rule('flowToken', optionalText({ max: 1024 })) flow_token?: string;

  @ApiPropertyOptional({ maxLength: 64, description: 'Exactly one of `flow_id` or `flow_name`.' })
  @Rule('flowId', (v, p) =>
    present(v) === present(p.flow_name) ? wholeRefusal('must hold exactly one of flow_id or flow_name') : optionalText({ max: 64 })(v, p),
  )
  flow_id?: string;

  @ApiPropertyOptional({ maxLength: 200 }) @Rule('flowName', optionalText({ max: 200 })) flow_name?: string;
  @ApiProperty({ maxLength: MESSAGE_LIMITS.flowCta }) @Rule('flowCta', required({ max: MESSAGE_LIMITS.flowCta })) flow_cta!: string;
  @ApiPropertyOptional({ enum: ['draft', 'published'] }) @Rule('flowMode', optionalOneOf(['draft', 'published'])) mode?: string;
  @ApiPropertyOptional({ enum: ['navigate', 'data_exchange'], default: 'navigate' })
  @Rule('flowAction', (v) => ifPresent(v, (x) => oneOf(x, ['navigate', 'data_exchange'])))
  flow_action?: string;

  @ApiPropertyOptional({ type: () => FlowPayload, description: 'With flow_action navigate only.' })
  @Rule('flowActionPayload', (v, p) =>
    !present(p.flow_action) || p.flow_action === 'navigate' ? shape(v, FlowPayload) : v !== undefined ? 'is only used with flow_action navigate' : null,
  )
  flow_action_payload?: FlowPayload;
}

export class FlowAction {
  @ApiProperty({ enum: ['flow'] }) @Rule('flowName', (v) => oneOf(v, ['flow'])) name!: string;
  @ApiProperty({ type: () => FlowParameters }) @Rule('flowParameters', (v) => shape(v, FlowParameters)) parameters!: FlowParameters;
}

const BUTTON_HEADERS = { text: HeaderText, image: HeaderImage, video: HeaderVideo, document: HeaderDocument };
const TEXT_HEADER = { text: HeaderText };

export class ButtonInteractive {
  @ApiProperty({ enum: ['button'] }) @Rule('interactiveType', checked) type!: string;
  @ApiPropertyOptional({ oneOf: Object.values(BUTTON_HEADERS).map((cls) => ({ $ref: getSchemaPath(cls) })) })
  @Rule('header', (v) => ifPresent(v, (x) => variant(x, 'type', BUTTON_HEADERS)))
  header?: HeaderText | HeaderImage | HeaderVideo | HeaderDocument;

  @ApiProperty({ type: () => InteractiveText }) @Rule('interactiveBody', (v) => shape(v, InteractiveText)) body!: InteractiveText;
  @ApiPropertyOptional({ type: () => InteractiveFooter }) @Rule('footer', (v) => ifPresent(v, (x) => shape(x, InteractiveFooter))) footer?: InteractiveFooter;
  @ApiProperty({ type: () => ButtonAction }) @Rule('buttonAction', (v) => shape(v, ButtonAction)) action!: ButtonAction;
}

export class ListInteractive {
  @ApiProperty({ enum: ['list'] }) @Rule('interactiveType', checked) type!: string;
  @ApiPropertyOptional({ type: () => HeaderText }) @Rule('header', (v) => ifPresent(v, (x) => variant(x, 'type', TEXT_HEADER))) header?: HeaderText;
  @ApiProperty({ type: () => InteractiveText }) @Rule('interactiveBody', (v) => shape(v, InteractiveText)) body!: InteractiveText;
  @ApiPropertyOptional({ type: () => InteractiveFooter }) @Rule('footer', (v) => ifPresent(v, (x) => shape(x, InteractiveFooter))) footer?: InteractiveFooter;
  @ApiProperty({ type: () => ListAction }) @Rule('listAction', (v) => shape(v, ListAction)) action!: ListAction;
}

export class FlowInteractive {
  @ApiProperty({ enum: ['flow'] }) @Rule('interactiveType', checked) type!: string;
  @ApiPropertyOptional({ type: () => HeaderText }) @Rule('header', (v) => ifPresent(v, (x) => variant(x, 'type', TEXT_HEADER))) header?: HeaderText;
  @ApiProperty({ type: () => InteractiveText }) @Rule('interactiveBody', (v) => shape(v, InteractiveText)) body!: InteractiveText;
  @ApiPropertyOptional({ type: () => InteractiveFooter }) @Rule('footer', (v) => ifPresent(v, (x) => shape(x, InteractiveFooter))) footer?: InteractiveFooter;
  @ApiProperty({ type: () => FlowAction }) @Rule('flowAction', (v) => shape(v, FlowAction)) action!: FlowAction;
}

export const INTERACTIVE_KINDS = { button: ButtonInteractive, list: ListInteractive, flow: FlowInteractive };

/* ---- template ---- */

const ic = { ignoreCase: true };
const typeOf =
  (values: readonly string[]): Check =>
  (v) =>
    oneOf(v, values, ic);

export class TemplateLanguage {
  @ApiProperty({ maxLength: 16, example: 'en_US' })
  @Rule('languageCode', required({ max: 16, pattern: /^[a-z]{2,3}([_-][A-Za-z0-9]{2,8})*$/, rule: 'must be a locale code such as en_US' }))
  code!: string;

  @ApiPropertyOptional({ enum: ['deterministic'] }) @Rule('languagePolicy', optionalOneOf(['deterministic'])) policy?: string;
}

export class TextParameter {
  @ApiProperty({ enum: ['text'] }) @Rule('parameterType', checked) type!: string;
  @ApiProperty({ maxLength: MESSAGE_LIMITS.headerText }) @Rule('parameterText', required({ max: MESSAGE_LIMITS.headerText })) text!: string;
}

export class LocationParameter {
  @ApiProperty({ enum: ['location'] }) @Rule('parameterType', checked) type!: string;
  @ApiProperty({ type: () => LocationContent }) @Rule('location', (v) => shape(v, LocationContent)) location!: LocationContent;
}

export class ImageParameter {
  @ApiProperty({ enum: ['image'] }) @Rule('parameterType', checked) type!: string;
  @ApiProperty({ type: () => ImageContent }) @Rule('image', (v) => shape(v, ImageContent)) image!: ImageContent;
}

export class VideoParameter {
  @ApiProperty({ enum: ['video'] }) @Rule('parameterType', checked) type!: string;
  @ApiProperty({ type: () => VideoContent }) @Rule('video', (v) => shape(v, VideoContent)) video!: VideoContent;
}

export class DocumentParameter {
  @ApiProperty({ enum: ['document'] }) @Rule('parameterType', checked) type!: string;
  @ApiProperty({ type: () => DocumentContent }) @Rule('document', (v) => shape(v, DocumentContent)) document!: DocumentContent;
}

const HEADER_PARAMETERS = { text: TextParameter, image: ImageParameter, video: VideoParameter, document: DocumentParameter, location: LocationParameter };

export class HeaderComponent {
  @ApiProperty({ enum: ['header'] }) @Rule('componentType', checked) type!: string;

  @ApiProperty({ type: 'array', maxItems: 1, items: { oneOf: Object.values(HEADER_PARAMETERS).map((cls) => ({ $ref: getSchemaPath(cls) })) } })
  @Rule('headerParameters', (v) => list(v, 0, 1, (p) => variant(p, 'type', HEADER_PARAMETERS, ic)))
  parameters!: unknown[];
}

export class BodyParameter {
  @ApiProperty({ enum: ['text'] }) @Rule('parameterType', typeOf(['text'])) type!: string;
  @ApiProperty({ maxLength: MESSAGE_LIMITS.parameterText }) @Rule('parameterText', required({ max: MESSAGE_LIMITS.parameterText })) text!: string;
}

export class BodyComponent {
  @ApiProperty({ enum: ['body'] }) @Rule('componentType', checked) type!: string;

  @ApiPropertyOptional({ type: () => [BodyParameter], maxItems: MESSAGE_LIMITS.bodyParameters })
  @Rule('bodyParameters', (v) => ifPresent(v, (x) => list(x, 0, MESSAGE_LIMITS.bodyParameters, (p) => shape(p, BodyParameter))))
  parameters?: BodyParameter[];
}

const SUB_TYPES = ['url', 'quick_reply', 'copy_code', 'catalog', 'mpm', 'flow'] as const;
type SubType = (typeof SUB_TYPES)[number];

export class UrlParameter {
  @ApiProperty({ enum: ['text'] }) @Rule('parameterType', typeOf(['text'])) type!: string;
  @ApiProperty({ maxLength: MESSAGE_LIMITS.link }) @Rule('parameterText', required({ max: MESSAGE_LIMITS.link })) text!: string;
}

export class PayloadParameter {
  @ApiProperty({ enum: ['payload'] }) @Rule('parameterType', typeOf(['payload'])) type!: string;
  @ApiProperty({ maxLength: MESSAGE_LIMITS.link }) @Rule('payload', required({ max: MESSAGE_LIMITS.link })) payload!: string;
}

export class CouponParameter {
  @ApiProperty({ enum: ['coupon_code'] }) @Rule('parameterType', typeOf(['coupon_code'])) type!: string;
  @ApiProperty({ maxLength: 15 }) @Rule('couponCode', required({ max: 15 })) coupon_code!: string;
}

export class CatalogAction {
  @ApiPropertyOptional({ maxLength: 256 }) @Rule('thumbnail', optionalText({ max: 256 })) thumbnail_product_retailer_id?: string;
}

/** The products of a multi-product message counted so far (at most 30 in all its sections). */
let productsSoFar: number | undefined;

export class ProductItem {
  @ApiProperty({ maxLength: 256 }) @Rule('productRetailerId', required({ max: 256 })) product_retailer_id!: string;
}

export class ProductSection {
  @ApiProperty({ maxLength: 24 }) @Rule('productSectionTitle', required({ max: 24 })) title!: string;

  @ApiProperty({ type: () => [ProductItem], minItems: 1, maxItems: MESSAGE_LIMITS.products })
  @Rule('productItems', (v) =>
    list(v, 1, MESSAGE_LIMITS.products, (item) => {
      const refusal = shape(item, ProductItem);
      if (refusal !== null || productsSoFar === undefined) return refusal;
      return ++productsSoFar > MESSAGE_LIMITS.products ? `a multi-product message holds at most ${MESSAGE_LIMITS.products} products` : null;
    }),
  )
  product_items!: ProductItem[];
}

export class MultiProductAction {
  @ApiProperty({ maxLength: 256 }) @Rule('thumbnail', required({ max: 256 })) thumbnail_product_retailer_id!: string;

  @ApiProperty({ type: () => [ProductSection], minItems: 1, maxItems: MESSAGE_LIMITS.productSections })
  @Rule('productSections', (v) => {
    productsSoFar = 0;
    try {
      return list(v, 1, MESSAGE_LIMITS.productSections, (section) => shape(section, ProductSection));
    } finally {
      productsSoFar = undefined;
    }
  })
  sections!: ProductSection[];
}

export class FlowButtonAction {
  @ApiPropertyOptional({ maxLength: 1024 }) @Rule('flowToken', optionalText({ max: 1024 })) flow_token?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @Rule('flowActionData', freeForm) flow_action_data?: Record<string, unknown>;
}

const BUTTON_ACTIONS: Partial<Record<SubType, DtoClass>> = { catalog: CatalogAction, mpm: MultiProductAction, flow: FlowButtonAction };

export class ActionParameter {
  @ApiProperty({ enum: ['action'] }) @Rule('parameterType', typeOf(['action'])) type!: string;
  @ApiProperty({ oneOf: Object.values(BUTTON_ACTIONS).map((cls) => ({ $ref: getSchemaPath(cls) })) })
  @Rule('buttonActionParameter', () => null)
  action!: CatalogAction | MultiProductAction | FlowButtonAction;
}

const BUTTON_PARAMETERS: Record<SubType, DtoClass> = {
  url: UrlParameter,
  quick_reply: PayloadParameter,
  copy_code: CouponParameter,
  catalog: ActionParameter,
  mpm: ActionParameter,
  flow: ActionParameter,
};

function subTypeOf(component: Record<string, unknown>): SubType {
  const sent = component.sub_type as string;
  return SUB_TYPES.find((s) => s === sent.toLowerCase())!;
}

export class ButtonComponent {
  @ApiProperty({ enum: ['button'] }) @Rule('componentType', checked) type!: string;
  @ApiProperty({ enum: SUB_TYPES }) @Rule('subType', typeOf(SUB_TYPES)) sub_type!: string;

  @ApiProperty({
    oneOf: [
      { type: 'string', pattern: '^\\d$' },
      { type: 'integer', minimum: 0, maximum: 9 },
    ],
  })
  @Rule('buttonIndex', (v) =>
    (typeof v === 'string' ? /^\d$/.test(v) : Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 9)
      ? null
      : 'must be a button position from 0 to 9, as a string or an integer',
  )
  index!: string | number;

  @ApiProperty({
    type: 'array',
    maxItems: 1,
    items: { oneOf: [...new Set(Object.values(BUTTON_PARAMETERS))].map((cls) => ({ $ref: getSchemaPath(cls) })) },
  })
  @Rule('buttonParameters', (v, component) => {
    const subType = subTypeOf(component);
    const min = subType === 'quick_reply' || subType === 'url' || subType === 'copy_code' ? 1 : 0;
    const cls = BUTTON_PARAMETERS[subType];
    return list(v, min, 1, (p) => {
      const refusal = shape(p, cls);
      if (refusal !== null || cls !== ActionParameter) return refusal;
      const action = shape(fieldOf(p, 'action'), BUTTON_ACTIONS[subType]!);
      return action === null ? null : partRefusal('action', action);
    });
  })
  parameters!: unknown[];
}

export class OfferExpiration {
  @ApiProperty({ type: 'integer', minimum: 0 })
  @Rule('expirationTimeMs', (v) => numberIn(v, 0, Number.MAX_SAFE_INTEGER, true))
  expiration_time_ms!: number;
}

export class OfferParameter {
  @ApiProperty({ enum: ['limited_time_offer'] }) @Rule('parameterType', typeOf(['limited_time_offer'])) type!: string;
  @ApiProperty({ type: () => OfferExpiration })
  @Rule('limitedTimeOffer', (v) => shape(v, OfferExpiration))
  limited_time_offer!: OfferExpiration;
}

export class OfferComponent {
  @ApiProperty({ enum: ['limited_time_offer'] }) @Rule('componentType', checked) type!: string;
  @ApiProperty({ type: () => [OfferParameter], minItems: 1, maxItems: 1 })
  @Rule('offerParameters', (v) => list(v, 1, 1, (p) => shape(p, OfferParameter)))
  parameters!: OfferParameter[];
}

/** A card's header takes an image or a video. */
@CheckFirst((header) => {
  const refusal = list(header.parameters, 1, 1, (p) => {
    const type = oneOf(fieldOf(p, 'type'), ['image', 'video'], ic);
    return type === null ? null : partRefusal('type', type);
  });
  return refusal === null ? null : partRefusal('parameters', refusal);
})
export class CardHeaderComponent extends HeaderComponent {}

const CARD_COMPONENTS = { header: CardHeaderComponent, body: BodyComponent, button: ButtonComponent };

/** The card indexes of a carousel seen so far (each unique). */
let cardIndexes: Set<unknown> | undefined;

function uniqueCard(index: unknown): Refusal {
  if (cardIndexes?.has(index) === true) return 'must be unique among the cards';
  cardIndexes?.add(index);
  return null;
}

export class CarouselCard {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 9 })
  @Rule('cardIndex', (v) => numberIn(v, 0, 9, true) ?? uniqueCard(v))
  card_index!: number;

  @ApiProperty({ type: 'array', minItems: 1, maxItems: MESSAGE_LIMITS.cardComponents, items: { type: 'object', additionalProperties: true } })
  @Rule('cardComponents', (v) => list(v, 1, MESSAGE_LIMITS.cardComponents, (c) => variant(c, 'type', CARD_COMPONENTS, ic)))
  components!: unknown[];
}

export class CarouselComponent {
  @ApiProperty({ enum: ['carousel'] }) @Rule('componentType', checked) type!: string;

  @ApiProperty({ type: () => [CarouselCard], minItems: 1, maxItems: MESSAGE_LIMITS.cards })
  @Rule('cards', (v) => {
    cardIndexes = new Set();
    try {
      return list(v, 1, MESSAGE_LIMITS.cards, (card) => shape(card, CarouselCard));
    } finally {
      cardIndexes = undefined;
    }
  })
  cards!: CarouselCard[];
}

const TEMPLATE_COMPONENTS = {
  header: HeaderComponent,
  body: BodyComponent,
  button: ButtonComponent,
  limited_time_offer: OfferComponent,
  carousel: CarouselComponent,
};

export class TemplateContent {
  @ApiProperty({ maxLength: MESSAGE_LIMITS.templateName }) @Rule('templateName', required({ max: MESSAGE_LIMITS.templateName })) name!: string;
  @ApiPropertyOptional({ maxLength: 256 }) @Rule('namespace', optionalText({ max: 256 })) namespace?: string;
  @ApiProperty({ type: () => TemplateLanguage }) @Rule('language', (v) => shape(v, TemplateLanguage)) language!: TemplateLanguage;

  @ApiPropertyOptional({
    type: 'array',
    maxItems: MESSAGE_LIMITS.templateComponents,
    items: { oneOf: Object.values(TEMPLATE_COMPONENTS).map((cls) => ({ $ref: getSchemaPath(cls) })) },
  })
  @Rule('components', (v) => ifPresent(v, (x) => list(x, 0, MESSAGE_LIMITS.templateComponents, (c) => variant(c, 'type', TEMPLATE_COMPONENTS, ic))))
  components?: unknown[];
}

/** Every content DTO, for the OpenAPI document (the `$ref`s above name them). */
export const MESSAGE_CONTENT_MODELS = [
  ...Object.values(MEDIA_CONTENT),
  ...Object.values(BUTTON_HEADERS),
  ...Object.values(HEADER_PARAMETERS),
  ...Object.values(TEMPLATE_COMPONENTS),
  ...Object.values(BUTTON_ACTIONS),
  UrlParameter,
  PayloadParameter,
  CouponParameter,
  ActionParameter,
  CardHeaderComponent,
];
