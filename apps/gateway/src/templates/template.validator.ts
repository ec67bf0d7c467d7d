import { HTTP_URL, Input } from '../common/input.validator';
import { InvalidParameterException } from '../errors/network-error.exception';
import { TEMPLATE_CATEGORIES, type TemplateDraft } from '../network/chat-provider';
import { variablesOf } from '../network/template-variables';

export const TEMPLATE_LIMITS = {
  name: 512,
  headerText: 60,
  body: 1024,
  footer: 60,
  buttons: 10,
  buttonText: 25,
  phoneNumber: 20,
  url: 2000,
  urlButtons: 2,
  copyCode: 15,
} as const;

/** Checks a `POST api/Templates` body against every creation rule of the spec. */
export function parseTemplateDraft(raw: unknown): TemplateDraft {
  const body = Input.body(raw).object(['name', 'category', 'allow_category_change', 'language', 'components', 'message_send_ttl_seconds']);
  const name = body.at('name').string({ max: TEMPLATE_LIMITS.name, pattern: /^[a-z0-9_]+$/, rule: 'must hold only lowercase letters, digits and underscores' });
  const category = body.at('category').oneOf(TEMPLATE_CATEGORIES, { ignoreCase: true });
  const allowCategoryChange = body.at('allow_category_change').optionalBoolean() ?? false;
  const language = body.at('language').string({ max: 16, pattern: /^[a-z]{2,3}(_[A-Z]{2}|_[A-Za-z]{4})?$/, rule: 'must be a locale code such as en_US' });
  const ttl = body.at('message_send_ttl_seconds');
  let messageSendTtlSeconds: number | undefined;
  if (ttl.present) {
    if (category !== 'AUTHENTICATION') ttl.fail('is only accepted for AUTHENTICATION templates');
    messageSendTtlSeconds = ttl.integer(30, 900);
  }
  const components = body.at('components').array(1, 4);
  const bodyText = category === 'AUTHENTICATION' ? authenticationComponents(components) : standardComponents(components);
  return { name, language, category, allowCategoryChange, components: components.map((c) => c.value), messageSendTtlSeconds, bodyText };
}

const COMPONENT_TYPES = ['HEADER', 'BODY', 'FOOTER', 'BUTTONS'] as const;

function onlyOnce(components: Input[]): Map<(typeof COMPONENT_TYPES)[number], Input> {
  const byType = new Map<(typeof COMPONENT_TYPES)[number], Input>();
  for (const component of components) {
    const type = component.at('type').oneOf(COMPONENT_TYPES, { ignoreCase: true });
    if (byType.has(type)) component.at('type').fail(`a template holds at most one ${type} component`);
    byType.set(type, component);
  }
  return byType;
}

function standardComponents(components: Input[]): string {
  const byType = onlyOnce(components);
  const header = byType.get('HEADER');
  if (header) templateHeader(header);
  const body = byType.get('BODY');
  if (!body) throw new InvalidParameterException('components', 'must hold a BODY component');
  body.object(['type', 'text', 'example']);
  const text = body.at('text').string({ max: TEMPLATE_LIMITS.body });
  const variables = variablesOf(text);
  sequential(body.at('text'), variables);
  const example = body.at('example');
  if (variables.length > 0) {
    example.object(['body_text']);
    const sets = example.at('body_text').array(1, 1);
    const strings = sets[0].array(variables.length, variables.length);
    strings.forEach((s) => s.string({ max: TEMPLATE_LIMITS.body }));
  } else if (example.present) example.object(['body_text']);
  const footer = byType.get('FOOTER');
  if (footer) {
    footer.object(['type', 'text']);
    const footerText = footer.at('text').string({ max: TEMPLATE_LIMITS.footer });
    if (variablesOf(footerText).length > 0) footer.at('text').fail('may not hold variables');
  }
  const buttons = byType.get('BUTTONS');
  if (buttons) templateButtons(buttons);
  return text;
}

function sequential(field: Input, variables: number[]): void {
  variables.forEach((n, i) => {
    if (n !== i + 1) field.fail('variables must be numbered {{1}}, {{2}}, ... in order');
  });
}

function templateHeader(header: Input): void {
  const format = header.at('format').oneOf(['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION'], { ignoreCase: true });
  if (format === 'TEXT') {
    header.object(['type', 'format', 'text', 'example']);
    const text = header.at('text').string({ max: TEMPLATE_LIMITS.headerText });
    const variables = variablesOf(text);
    if (variables.length > 1) header.at('text').fail('may hold at most 1 variable');
    sequential(header.at('text'), variables);
    const example = header.at('example');
    if (variables.length === 1) {
      example.object(['header_text']);
      example.at('header_text').array(1, 1)[0].string({ max: TEMPLATE_LIMITS.headerText });
    } else if (example.present) example.object(['header_text']);
  } else if (format === 'LOCATION') {
    // Only UTILITY and MARKETING templates get here: AUTHENTICATION templates take no header at all.
    header.object(['type', 'format']);
  } else {
    header.object(['type', 'format', 'example']);
    const example = header.at('example').object(['header_handle']);
    for (const handle of example.at('header_handle').array(1, 1)) handle.string({ max: TEMPLATE_LIMITS.url });
  }
}

const BUTTON_TYPES = ['PHONE_NUMBER', 'URL', 'QUICK_REPLY', 'COPY_CODE', 'FLOW'] as const;
const AT_MOST: Record<(typeof BUTTON_TYPES)[number], number> = { PHONE_NUMBER: 1, URL: TEMPLATE_LIMITS.urlButtons, QUICK_REPLY: 10, COPY_CODE: 1, FLOW: 1 };

function templateButtons(component: Input): void {
  component.object(['type', 'buttons']);
  const buttons = component.at('buttons').array(1, TEMPLATE_LIMITS.buttons);
  const counts = new Map<string, number>();
  let groups = 0;
  let previousQuick: boolean | undefined;
  for (const button of buttons) {
    const type = button.at('type').oneOf(BUTTON_TYPES, { ignoreCase: true });
    const count = (counts.get(type) ?? 0) + 1;
    if (count > AT_MOST[type]) button.at('type').fail(`a template holds at most ${AT_MOST[type]} ${type} button${AT_MOST[type] === 1 ? '' : 's'}`);
    counts.set(type, count);
    const quick = type === 'QUICK_REPLY';
    if (quick !== previousQuick) groups++;
    previousQuick = quick;
    if (groups > 2) component.at('buttons').fail('invalid combination of buttons: quick replies must be grouped together, apart from the other buttons');
    templateButton(button, type);
  }
}

function templateButton(button: Input, type: (typeof BUTTON_TYPES)[number]): void {
  const label = () => button.at('text').string({ max: TEMPLATE_LIMITS.buttonText });
  switch (type) {
    case 'PHONE_NUMBER':
      button.object(['type', 'text', 'phone_number']);
      label();
      button.at('phone_number').string({ max: TEMPLATE_LIMITS.phoneNumber, pattern: /^\+?[0-9A-Za-z]+$/, rule: 'must be alphanumeric' });
      return;
    case 'URL': {
      button.object(['type', 'text', 'url', 'example']);
      const text = label();
      if (variablesOf(text).length > 1) button.at('text').fail('may hold at most 1 variable');
      const url = button.at('url').string({ max: TEMPLATE_LIMITS.url, pattern: HTTP_URL, rule: 'must be an http(s) URL' });
      const variables = variablesOf(url);
      if (variables.length > 1) button.at('url').fail('may hold at most 1 variable');
      if (variables.length === 1 && !/\{\{1\}\}$/.test(url)) button.at('url').fail('its variable must be {{1}}, at the end of the URL');
      const example = button.at('example');
      if (variables.length === 1) example.array(1, 1)[0].string({ max: TEMPLATE_LIMITS.url, pattern: HTTP_URL, rule: 'must be an http(s) URL' });
      else example.absent('is only used when the URL holds a variable');
      return;
    }
    case 'QUICK_REPLY':
      button.object(['type', 'text']);
      label();
      return;
    case 'COPY_CODE':
      button.object(['type', 'example']);
      button.at('example').string({ max: TEMPLATE_LIMITS.copyCode });
      return;
    case 'FLOW': {
      button.object(['type', 'text', 'flow_id', 'flow_action', 'navigate_screen']);
      label();
      button.at('flow_id').string({ max: 64, pattern: /^\d+$/, rule: 'must be the id of a published flow' });
      const action = button.at('flow_action').present ? button.at('flow_action').oneOf(['navigate', 'data_exchange'], { ignoreCase: true }) : 'navigate';
      if (action === 'navigate') button.at('navigate_screen').string({ max: 200 });
      else button.at('navigate_screen').optionalString({ max: 200 });
      return;
    }
  }
}

function authenticationComponents(components: Input[]): string {
  const byType = onlyOnce(components);
  if (byType.has('HEADER')) byType.get('HEADER')!.at('type').fail('AUTHENTICATION templates have no HEADER');
  const body = byType.get('BODY');
  if (!body) throw new InvalidParameterException('components', 'must hold a BODY component');
  body.object(['type', 'add_security_recommendation']);
  body.at('add_security_recommendation').optionalBoolean();
  const footer = byType.get('FOOTER');
  if (footer) {
    footer.object(['type', 'code_expiration_minutes']);
    if (footer.at('code_expiration_minutes').present) footer.at('code_expiration_minutes').integer(1, 90);
  }
  const buttons = byType.get('BUTTONS');
  if (!buttons) throw new InvalidParameterException('components', 'AUTHENTICATION templates need a BUTTONS component with one otp button');
  buttons.object(['type', 'buttons']);
  const [otp] = buttons.at('buttons').array(1, 1);
  otp.object(['type', 'otp_type', 'text', 'autofill_text', 'package_name', 'signature_hash', 'zero_tap_terms_accepted']);
  otp.at('type').oneOf(['otp'], { ignoreCase: true });
  const otpType = otp.at('otp_type').oneOf(['one_tap', 'zero_tap'], { ignoreCase: true });
  otp.at('text').optionalString({ max: TEMPLATE_LIMITS.buttonText });
  otp.at('autofill_text').optionalString({ max: TEMPLATE_LIMITS.buttonText });
  otp
    .at('package_name')
    .string({ max: 224, pattern: /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, rule: 'must be an Android package name such as com.example.app' });
  otp.at('signature_hash').string({ min: 11, max: 11, pattern: /^[A-Za-z0-9+/]{11}$/, rule: 'must be the 11-character app signature hash' });
  const terms = otp.at('zero_tap_terms_accepted');
  if (otpType === 'zero_tap') {
    if (terms.boolean() !== true) terms.fail('must be true: zero-tap templates are only registered once the terms are accepted');
  } else terms.optionalBoolean();
  return '';
}
