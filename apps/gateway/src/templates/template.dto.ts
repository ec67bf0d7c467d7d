import { ApiProperty, ApiPropertyOptional, getSchemaPath, type ApiBodyOptions } from '@nestjs/swagger';
import { TEMPLATE_CATEGORIES, type TemplateCategory, type TemplateDraft } from '../network/chat-provider';
import { variablesOf } from '../network/template-variables';
import {
  boolean,
  fieldOf,
  HTTP_URL,
  ifPresent,
  list,
  numberIn,
  oneOf,
  optional,
  partRefusal,
  present,
  Rule,
  shape,
  text,
  variant,
  type Check,
  type DtoClass,
  type Refusal,
  type TextRules,
} from '../common/rule.decorator';

export const TEMPLATE_LIMITS = {
  name: 512,
  headerText: 60,
  body: 1024,
  footer: 60,
  components: 4,
  buttons: 10,
  buttonText: 25,
  phoneNumber: 20,
  url: 2000,
  urlButtons: 2,
  copyCode: 15,
  ttl: { min: 30, max: 900 },
  codeExpirationMinutes: { min: 1, max: 90 },
} as const;

const NAME = /^[a-z0-9_]+$/;
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2}|_[A-Za-z]{4})?$/;
const URL_RULES: TextRules = { max: TEMPLATE_LIMITS.url, pattern: HTTP_URL, rule: 'must be an http(s) URL' };
const ic = { ignoreCase: true };
const required =
  (rules: TextRules): Check =>
  (v) =>
    text(v, rules);
const optionalText =
  (rules: TextRules): Check =>
  (v) =>
    optional(v, (x) => text(x, rules));
/** Only to declare a field checked before the object's fields are (its `type`, `format`). */
const checked: Check = () => null;

/** `{{1}}`, `{{2}}`… in order. */
function sequential(variables: number[]): Refusal {
  return variables.some((n, i) => n !== i + 1) ? 'variables must be numbered {{1}}, {{2}}, ... in order' : null;
}

const variablesIn = (value: unknown): number[] => (typeof value === 'string' ? variablesOf(value) : []);

/* ---- header ---- */

export class HeaderTextExample {
  @ApiProperty({ type: [String], minItems: 1, maxItems: 1 })
  @Rule('headerText', (v) => list(v, 1, 1, (x) => text(x, { max: TEMPLATE_LIMITS.headerText })))
  header_text!: string[];
}

/** An example a text without variables may carry (unchecked, as the network does). */
export class UnusedHeaderExample {
  @ApiPropertyOptional() @Rule('headerText', checked) header_text?: unknown;
}

export class TextHeader {
  @ApiProperty({ enum: ['HEADER'] }) @Rule('componentType', checked) type!: string;
  @ApiProperty({ enum: ['TEXT'] }) @Rule('headerFormat', checked) format!: string;

  @ApiProperty({ maxLength: TEMPLATE_LIMITS.headerText, description: 'At most one variable, {{1}}.' })
  @Rule('headerTextValue', (v) => {
    const refusal = text(v, { max: TEMPLATE_LIMITS.headerText });
    if (refusal !== null) return refusal;
    const variables = variablesIn(v);
    return variables.length > 1 ? 'may hold at most 1 variable' : sequential(variables);
  })
  text!: string;

  @ApiPropertyOptional({ type: () => HeaderTextExample, description: 'Required when the text holds a variable.' })
  @Rule('headerExample', (v, header) =>
    variablesIn(header.text).length === 1 ? shape(v, HeaderTextExample) : ifPresent(v, (x) => shape(x, UnusedHeaderExample)),
  )
  example?: HeaderTextExample;
}

export class LocationHeader {
  @ApiProperty({ enum: ['HEADER'] }) @Rule('componentType', checked) type!: string;
  @ApiProperty({ enum: ['LOCATION'] }) @Rule('headerFormat', checked) format!: string;
}

export class HeaderHandleExample {
  @ApiProperty({ type: [String], minItems: 1, maxItems: 1, description: 'A handle of an uploaded sample.' })
  @Rule('headerHandle', (v) => list(v, 1, 1, (x) => text(x, { max: TEMPLATE_LIMITS.url })))
  header_handle!: string[];
}

export class MediaHeader {
  @ApiProperty({ enum: ['HEADER'] }) @Rule('componentType', checked) type!: string;
  @ApiProperty({ enum: ['IMAGE', 'VIDEO', 'DOCUMENT'] }) @Rule('headerFormat', checked) format!: string;
  @ApiProperty({ type: () => HeaderHandleExample }) @Rule('headerExample', (v) => shape(v, HeaderHandleExample)) example!: HeaderHandleExample;
}

// LOCATION: only UTILITY and MARKETING templates get here (AUTHENTICATION templates take no header at all).
const HEADERS: Record<string, DtoClass> = { TEXT: TextHeader, IMAGE: MediaHeader, VIDEO: MediaHeader, DOCUMENT: MediaHeader, LOCATION: LocationHeader };

/* ---- body and footer ---- */

export class BodyExample {
  @ApiProperty({ type: 'array', minItems: 1, maxItems: 1, items: { type: 'array', items: { type: 'string', maxLength: TEMPLATE_LIMITS.body } } })
  @Rule('bodyText', checked)
  body_text!: string[][];
}

/** An example a body without variables may carry (unchecked, as the network does). */
export class UnusedBodyExample {
  @ApiPropertyOptional() @Rule('bodyText', checked) body_text?: unknown;
}

export class TemplateBodyComponent {
  @ApiProperty({ enum: ['BODY'] }) @Rule('componentType', checked) type!: string;

  @ApiProperty({ maxLength: TEMPLATE_LIMITS.body, description: 'Variables {{1}}, {{2}}… in order.' })
  @Rule('bodyTextValue', (v) => text(v, { max: TEMPLATE_LIMITS.body }) ?? sequential(variablesIn(v)))
  text!: string;

  @ApiPropertyOptional({ type: () => BodyExample, description: 'One example per variable; required when the text holds variables.' })
  @Rule('bodyExample', (v, body) => {
    const count = variablesIn(body.text).length;
    if (count === 0) return ifPresent(v, (x) => shape(x, UnusedBodyExample));
    const own = shape(v, UnusedBodyExample);
    if (own !== null) return own;
    const sets = list((v as BodyExample).body_text, 1, 1, (set) => list(set, count, count, (x) => text(x, { max: TEMPLATE_LIMITS.body })));
    return sets === null ? null : partRefusal('body_text', sets);
  })
  example?: BodyExample;
}

export class FooterComponent {
  @ApiProperty({ enum: ['FOOTER'] }) @Rule('componentType', checked) type!: string;

  @ApiProperty({ maxLength: TEMPLATE_LIMITS.footer, description: 'No variables.' })
  @Rule('footerText', (v) => text(v, { max: TEMPLATE_LIMITS.footer }) ?? (variablesIn(v).length > 0 ? 'may not hold variables' : null))
  text!: string;
}

/* ---- buttons ---- */

const buttonText = required({ max: TEMPLATE_LIMITS.buttonText });

export class PhoneNumberButton {
  @ApiProperty({ enum: ['PHONE_NUMBER'] }) @Rule('buttonType', checked) type!: string;
  @ApiProperty({ maxLength: TEMPLATE_LIMITS.buttonText }) @Rule('buttonText', buttonText) text!: string;
  @ApiProperty({ maxLength: TEMPLATE_LIMITS.phoneNumber })
  @Rule('phoneNumber', required({ max: TEMPLATE_LIMITS.phoneNumber, pattern: /^\+?[0-9A-Za-z]+$/, rule: 'must be alphanumeric' }))
  phone_number!: string;
}

export class UrlButton {
  @ApiProperty({ enum: ['URL'] }) @Rule('buttonType', checked) type!: string;
  @ApiProperty({ maxLength: TEMPLATE_LIMITS.buttonText })
  @Rule('buttonText', (v, b) => buttonText(v, b) ?? (variablesIn(v).length > 1 ? 'may hold at most 1 variable' : null))
  text!: string;

  @ApiProperty({ maxLength: TEMPLATE_LIMITS.url, format: 'uri', description: 'At most one variable, {{1}}, at its end.' })
  @Rule('buttonUrl', (v) => {
    const refusal = text(v, URL_RULES);
    if (refusal !== null) return refusal;
    const variables = variablesIn(v);
    if (variables.length > 1) return 'may hold at most 1 variable';
    return variables.length === 1 && !/\{\{1\}\}$/.test(v as string) ? 'its variable must be {{1}}, at the end of the URL' : null;
  })
  url!: string;

  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: 1, description: 'An example URL, when the URL holds a variable.' })
  @Rule('buttonExample', (v, b) =>
    variablesIn(b.url).length === 1 ? list(v, 1, 1, (x) => text(x, URL_RULES)) : v !== undefined ? 'is only used when the URL holds a variable' : null,
  )
  example?: string[];
}

export class QuickReplyButton {
  @ApiProperty({ enum: ['QUICK_REPLY'] }) @Rule('buttonType', checked) type!: string;
  @ApiProperty({ maxLength: TEMPLATE_LIMITS.buttonText }) @Rule('buttonText', buttonText) text!: string;
}

export class CopyCodeButton {
  @ApiProperty({ enum: ['COPY_CODE'] }) @Rule('buttonType', checked) type!: string;
  @ApiProperty({ maxLength: TEMPLATE_LIMITS.copyCode }) @Rule('copyCodeExample', required({ max: TEMPLATE_LIMITS.copyCode })) example!: string;
}

const FLOW_ACTIONS = ['navigate', 'data_exchange'];
const flowAction = (button: Record<string, unknown>) => (present(button.flow_action) ? (button.flow_action as string).toLowerCase() : 'navigate');

export class FlowButton {
  @ApiProperty({ enum: ['FLOW'] }) @Rule('buttonType', checked) type!: string;
  @ApiProperty({ maxLength: TEMPLATE_LIMITS.buttonText }) @Rule('buttonText', buttonText) text!: string;
  @ApiProperty({ maxLength: 64 }) @Rule('flowId', required({ max: 64, pattern: /^\d+$/, rule: 'must be the id of a published flow' })) flow_id!: string;
  @ApiPropertyOptional({ enum: FLOW_ACTIONS, default: 'navigate' })
  @Rule('flowAction', (v) => ifPresent(v, (x) => oneOf(x, FLOW_ACTIONS, ic)))
  flow_action?: string;
  @ApiPropertyOptional({ maxLength: 200, description: 'Required with flow_action navigate.' })
  @Rule('navigateScreen', (v, b) => (flowAction(b) === 'navigate' ? text(v, { max: 200 }) : optionalText({ max: 200 })(v, b)))
  navigate_screen?: string;
}

const BUTTONS: Record<string, DtoClass> = {
  PHONE_NUMBER: PhoneNumberButton,
  URL: UrlButton,
  QUICK_REPLY: QuickReplyButton,
  COPY_CODE: CopyCodeButton,
  FLOW: FlowButton,
};
const AT_MOST: Record<string, number> = { PHONE_NUMBER: 1, URL: TEMPLATE_LIMITS.urlButtons, QUICK_REPLY: 10, COPY_CODE: 1, FLOW: 1 };

/** The buttons in order: each of its kind, at most so many of a kind, quick replies grouped apart from the others. */
function buttonsRefusal(value: unknown): Refusal {
  const structure = list(value, 1, TEMPLATE_LIMITS.buttons);
  if (structure !== null) return structure;
  const counts = new Map<string, number>();
  let groups = 0;
  let previousQuick: boolean | undefined;
  for (const [i, button] of (value as unknown[]).entries()) {
    const sent = fieldOf(button, 'type');
    const refusal = oneOf(sent, Object.keys(BUTTONS), ic);
    if (refusal !== null) return partRefusal(String(i), partRefusal('type', refusal));
    const type = (sent as string).toUpperCase();
    const count = (counts.get(type) ?? 0) + 1;
    if (count > AT_MOST[type])
      return partRefusal(String(i), partRefusal('type', `a template holds at most ${AT_MOST[type]} ${type} button${AT_MOST[type] === 1 ? '' : 's'}`));
    counts.set(type, count);
    const quick = type === 'QUICK_REPLY';
    if (quick !== previousQuick) groups++;
    previousQuick = quick;
    if (groups > 2) return 'invalid combination of buttons: quick replies must be grouped together, apart from the other buttons';
    const fields = shape(button, BUTTONS[type]);
    if (fields !== null) return partRefusal(String(i), fields);
  }
  return null;
}

export class ButtonsComponent {
  @ApiProperty({ enum: ['BUTTONS'] }) @Rule('componentType', checked) type!: string;

  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: TEMPLATE_LIMITS.buttons,
    items: { oneOf: Object.values(BUTTONS).map((cls) => ({ $ref: getSchemaPath(cls) })) },
  })
  @Rule('buttons', buttonsRefusal)
  buttons!: Record<string, unknown>[];
}

/* ---- authentication ---- */

export class AuthBody {
  @ApiProperty({ enum: ['BODY'] }) @Rule('componentType', checked) type!: string;
  @ApiPropertyOptional() @Rule('addSecurityRecommendation', (v) => optional(v, boolean)) add_security_recommendation?: boolean;
}

export class AuthFooter {
  @ApiProperty({ enum: ['FOOTER'] }) @Rule('componentType', checked) type!: string;
  @ApiPropertyOptional({ type: 'integer', minimum: TEMPLATE_LIMITS.codeExpirationMinutes.min, maximum: TEMPLATE_LIMITS.codeExpirationMinutes.max })
  @Rule('codeExpirationMinutes', (v) =>
    ifPresent(v, (x) => numberIn(x, TEMPLATE_LIMITS.codeExpirationMinutes.min, TEMPLATE_LIMITS.codeExpirationMinutes.max, true)),
  )
  code_expiration_minutes?: number;
}

export class OtpButton {
  @ApiProperty({ enum: ['OTP'] }) @Rule('otpType', (v) => oneOf(v, ['otp'], ic)) type!: string;
  @ApiProperty({ enum: ['one_tap', 'zero_tap'] }) @Rule('otpKind', (v) => oneOf(v, ['one_tap', 'zero_tap'], ic)) otp_type!: string;
  @ApiPropertyOptional({ maxLength: TEMPLATE_LIMITS.buttonText }) @Rule('otpText', optionalText({ max: TEMPLATE_LIMITS.buttonText })) text?: string;
  @ApiPropertyOptional({ maxLength: TEMPLATE_LIMITS.buttonText })
  @Rule('autofillText', optionalText({ max: TEMPLATE_LIMITS.buttonText }))
  autofill_text?: string;

  @ApiProperty({ maxLength: 224, example: 'com.example.app' })
  @Rule(
    'packageName',
    required({ max: 224, pattern: /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, rule: 'must be an Android package name such as com.example.app' }),
  )
  package_name!: string;

  @ApiProperty({ minLength: 11, maxLength: 11 })
  @Rule('signatureHash', required({ min: 11, max: 11, pattern: /^[A-Za-z0-9+/]{11}$/, rule: 'must be the 11-character app signature hash' }))
  signature_hash!: string;

  @ApiPropertyOptional({ description: 'Must be true for zero_tap.' })
  @Rule('zeroTapTerms', (v, otp) =>
    (otp.otp_type as string).toLowerCase() === 'zero_tap'
      ? (boolean(v) ?? (v !== true ? 'must be true: zero-tap templates are only registered once the terms are accepted' : null))
      : optional(v, boolean),
  )
  zero_tap_terms_accepted?: boolean;
}

export class AuthButtons {
  @ApiProperty({ enum: ['BUTTONS'] }) @Rule('componentType', checked) type!: string;
  @ApiProperty({ type: () => [OtpButton], minItems: 1, maxItems: 1 })
  @Rule('otpButtons', (v) => list(v, 1, 1, (b) => shape(b, OtpButton)))
  buttons!: OtpButton[];
}

/* ---- the body ---- */

const COMPONENT_TYPES = ['HEADER', 'BODY', 'FOOTER', 'BUTTONS'] as const;

const isAuthentication = (draft: Record<string, unknown>): boolean => typeof draft.category === 'string' && draft.category.toUpperCase() === 'AUTHENTICATION';

/** The components: each type at most once, then header, body, footer and buttons checked in that order. */
function componentsRefusal(value: unknown, draft: Record<string, unknown>): Refusal {
  const structure = list(value, 1, TEMPLATE_LIMITS.components);
  if (structure !== null) return structure;
  const at = new Map<string, number>();
  for (const [i, component] of (value as unknown[]).entries()) {
    const sent = fieldOf(component, 'type');
    const refusal = oneOf(sent, COMPONENT_TYPES, ic);
    if (refusal !== null) return partRefusal(String(i), partRefusal('type', refusal));
    const type = (sent as string).toUpperCase();
    if (at.has(type)) return partRefusal(String(i), partRefusal('type', `a template holds at most one ${type} component`));
    at.set(type, i);
  }
  const components = value as Record<string, unknown>[];
  const check = (type: string, refuse: (component: Record<string, unknown>) => Refusal): Refusal => {
    const i = at.get(type);
    const refusal = i === undefined ? null : refuse(components[i]);
    return refusal === null ? null : partRefusal(String(i), refusal);
  };
  if (isAuthentication(draft)) {
    if (at.has('HEADER')) return partRefusal(String(at.get('HEADER')), partRefusal('type', 'AUTHENTICATION templates have no HEADER'));
    if (!at.has('BODY')) return 'must hold a BODY component';
    return (
      check('BODY', (c) => shape(c, AuthBody)) ??
      check('FOOTER', (c) => shape(c, AuthFooter)) ??
      (at.has('BUTTONS') ? check('BUTTONS', (c) => shape(c, AuthButtons)) : 'AUTHENTICATION templates need a BUTTONS component with one otp button')
    );
  }
  const header = check('HEADER', (c) => variant(c, 'format', HEADERS, ic));
  if (header !== null) return header;
  if (!at.has('BODY')) return 'must hold a BODY component';
  return (
    check('BODY', (c) => shape(c, TemplateBodyComponent)) ??
    check('FOOTER', (c) => shape(c, FooterComponent)) ??
    check('BUTTONS', (c) => shape(c, ButtonsComponent))
  );
}

/** The body of POST api/Templates: every creation rule of the spec. */
export class CreateTemplateBody {
  @ApiProperty({ maxLength: TEMPLATE_LIMITS.name, pattern: NAME.source })
  @Rule('templateName', required({ max: TEMPLATE_LIMITS.name, pattern: NAME, rule: 'must hold only lowercase letters, digits and underscores' }))
  name!: string;

  @ApiProperty({ enum: TEMPLATE_CATEGORIES, description: 'In any case.' })
  @Rule('category', (v) => oneOf(v, TEMPLATE_CATEGORIES, ic))
  category!: string;

  @ApiPropertyOptional({ default: false })
  @Rule('allowCategoryChange', (v) => optional(v, boolean))
  allow_category_change?: boolean;

  @ApiProperty({ maxLength: 16, example: 'en_US', pattern: LANGUAGE.source })
  @Rule('templateLanguage', required({ max: 16, pattern: LANGUAGE, rule: 'must be a locale code such as en_US' }))
  language!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: TEMPLATE_LIMITS.ttl.min, maximum: TEMPLATE_LIMITS.ttl.max, description: 'AUTHENTICATION templates only.' })
  @Rule('messageSendTtl', (v, draft) =>
    ifPresent(v, (x) =>
      !isAuthentication(draft) ? 'is only accepted for AUTHENTICATION templates' : numberIn(x, TEMPLATE_LIMITS.ttl.min, TEMPLATE_LIMITS.ttl.max, true),
    ),
  )
  message_send_ttl_seconds?: number;

  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: TEMPLATE_LIMITS.components,
    description: 'HEADER, BODY (required; variables {{1}}, {{2}}... with an example), FOOTER and BUTTONS, each at most once.',
    items: {
      oneOf: [TextHeader, LocationHeader, MediaHeader, TemplateBodyComponent, FooterComponent, ButtonsComponent, AuthBody, AuthFooter, AuthButtons].map(
        (cls) => ({
          $ref: getSchemaPath(cls),
        }),
      ),
    },
  })
  @Rule('components', componentsRefusal)
  components!: Record<string, unknown>[];
}

export const TEMPLATE_MODELS = [
  TextHeader,
  LocationHeader,
  MediaHeader,
  TemplateBodyComponent,
  FooterComponent,
  ButtonsComponent,
  AuthBody,
  AuthFooter,
  AuthButtons,
  PhoneNumberButton,
  UrlButton,
  QuickReplyButton,
  CopyCodeButton,
  FlowButton,
];

/** What a validated body asks the network for. */
export function templateDraft(body: CreateTemplateBody): TemplateDraft {
  const category = TEMPLATE_CATEGORIES.find((c) => c === body.category.toUpperCase()) as TemplateCategory;
  const bodyComponent = body.components.find((c) => (c.type as string).toUpperCase() === 'BODY');
  return {
    name: body.name,
    language: body.language,
    category,
    allowCategoryChange: body.allow_category_change ?? false,
    components: body.components,
    messageSendTtlSeconds: present(body.message_send_ttl_seconds) ? body.message_send_ttl_seconds : undefined,
    bodyText: category === 'AUTHENTICATION' ? '' : (bodyComponent!.text as string),
  };
}

/** The body in the OpenAPI document, with an example that works as sent. */
export const CREATE_TEMPLATE_DOCS: ApiBodyOptions = {
  type: CreateTemplateBody,
  examples: {
    utility: {
      summary: 'An order update with one variable',
      value: {
        name: 'order_update',
        category: 'UTILITY',
        language: 'en_US',
        components: [
          { type: 'BODY', text: 'Your order {{1}} is on its way.', example: { body_text: [['A-1001']] } },
          { type: 'FOOTER', text: 'Reply STOP to opt out' },
        ],
      },
    },
  },
};
