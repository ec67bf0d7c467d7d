import { HTTP_URL, Input } from '../common/input.validator';
import type { ProfileFields } from '../network/chat-provider';

export const VERTICALS = ['', 'UNDEFINED', 'OTHER', 'AUTO', 'BEAUTY', 'APPAREL', 'EDU', 'ENTERTAIN', 'EVENT_PLAN', 'FINANCE', 'GROCERY', 'GOVT', 'HOTEL', 'HEALTH', 'NONPROFIT', 'PROF_SERVICES', 'RETAIL', 'TRAVEL', 'RESTAURANT', 'NOT_A_BIZ'] as const;

const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** Checks a `POST api/Profiles` body: every field constraint of the spec's Business profile table. */
export function parseProfileUpdate(raw: unknown, network: string): ProfileFields {
  const body = Input.body(raw).object(['messaging_product', 'address', 'description', 'vertical', 'about', 'email', 'websites']);
  body.at('messaging_product').oneOf([network]);
  const fields: ProfileFields = {
    address: body.at('address').optionalString({ min: 0, max: 256 }),
    description: body.at('description').optionalString({ min: 0, max: 256 }),
    vertical: body.at('vertical').present ? body.at('vertical').oneOf(VERTICALS) : undefined,
    about: body.at('about').optionalString({ min: 1, max: 139 }),
    email: body.at('email').optionalString({ max: 128, pattern: EMAIL, rule: 'must be a valid e-mail address' }),
    websites: body.at('websites').present ? body.at('websites').array(0, 2).map((w) => w.string({ max: 256, pattern: HTTP_URL, rule: 'must start with http:// or https://' })) : undefined,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as ProfileFields;
}
