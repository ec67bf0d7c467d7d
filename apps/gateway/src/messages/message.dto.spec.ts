import 'reflect-metadata';
import fc from 'fast-check';
import { createValidationPipe, ValidationFailedException } from '@app/errors';
import { invalidParameter } from '../common/invalid-input.filter';
import { InvalidParameterException } from '../errors/network-error.exception';
import { acceptsMessage, acceptsTextMessage, messageRequest, SendMessageBody, type MessageRequest } from './message.dto';

const N = 'whatsapp';
const base = { messaging_product: N, to: '15550102030' };

// A subclass carries the decorators but no quick check: the pipe validates it in full.
class FullSendMessageBody extends SendMessageBody {}

const pipe = createValidationPipe();

/** The body through the global pipe and the network's error rendering (InvalidInputFilter's), as a request takes them. */
async function validated(body: unknown, metatype: typeof SendMessageBody = FullSendMessageBody): Promise<SendMessageBody> {
  try {
    return (await pipe.transform(body, { type: 'body', metatype })) as SendMessageBody;
  } catch (error) {
    throw error instanceof ValidationFailedException ? invalidParameter(error) : error;
  }
}

async function parse(body: unknown): Promise<MessageRequest> {
  return messageRequest(await validated(body));
}

async function refusal(body: unknown): Promise<string> {
  try {
    await validated(body);
  } catch (error) {
    if (error instanceof InvalidParameterException) return error.network.details;
    throw error;
  }
  throw new Error('accepted');
}

const accepted = (body: unknown): Promise<boolean> =>
  validated(body).then(
    () => true,
    () => false,
  );

describe('SendMessageBody', () => {
  it('defaults the type to text and keeps the body as sent', async () => {
    const parsed = await parse({ ...base, text: { body: 'hi', preview_url: true } });
    expect(parsed).toEqual({
      kind: 'send',
      to: '15550102030',
      type: 'text',
      payload: { ...base, text: { body: 'hi', preview_url: true }, type: 'text' },
      mediaIds: [],
      template: undefined,
    });
  });

  it('reads mark-as-read without to or type', async () => {
    expect(await parse({ messaging_product: N, status: 'read', message_id: 'wamid.1' })).toEqual({ kind: 'read', messageId: 'wamid.1' });
    expect(await refusal({ messaging_product: N, status: 'read', message_id: 'wamid.1', type: 'text' })).toBe('type: is not a known parameter');
    expect(await refusal({ messaging_product: N, status: 'delivered', message_id: 'wamid.1' })).toBe('status: must be one of read');
  });

  it('applies the text and interactive limits', async () => {
    expect(await accepted({ ...base, text: { body: 'x'.repeat(4096) } })).toBe(true);
    expect(await refusal({ ...base, text: { body: 'x'.repeat(4097) } })).toBe('text.body: must be at most 4096 characters long');
    const interactive = (body: string) => ({
      ...base,
      type: 'interactive',
      interactive: { type: 'button', body: { text: body }, action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] } },
    });
    expect(await accepted(interactive('x'.repeat(1024)))).toBe(true);
    expect(await refusal(interactive('x'.repeat(1025)))).toBe('interactive.body.text: must be at most 1024 characters long');
    const dup = {
      ...interactive('b'),
      interactive: {
        type: 'button',
        body: { text: 'b' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'a', title: 'A' } },
            { type: 'reply', reply: { id: 'a', title: 'B' } },
          ],
        },
      },
    };
    expect(await refusal(dup)).toBe('interactive.action.buttons.1.reply.id: must be unique among the buttons');
  });

  it('counts list rows across sections (at most 10)', async () => {
    const rows = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, title: 'T' }));
    const list = (a: number, b: number) => ({
      ...base,
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: 'b' },
        action: {
          button: 'Go',
          sections: [
            { title: 'A', rows: rows(a, 'a') },
            { title: 'B', rows: rows(b, 'b') },
          ],
        },
      },
    });
    expect(await accepted(list(5, 5))).toBe(true);
    expect(await refusal(list(6, 5))).toBe('interactive.action.sections.1.rows.4: a list holds at most 10 rows in all its sections');
  });

  it('collects media ids with their fields, in templates too', async () => {
    const parsed = await parse({
      ...base,
      type: 'template',
      template: {
        name: 't',
        language: { code: 'en_US' },
        components: [
          { type: 'HEADER', parameters: [{ type: 'image', image: { id: 'm1' } }] },
          {
            type: 'BODY',
            parameters: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
        ],
      },
    });
    expect(parsed).toMatchObject({
      mediaIds: [{ field: 'template.components.0.parameters.0.image.id', id: 'm1' }],
      template: { name: 't', language: 'en_US', bodyParameters: 2 },
    });
  });

  it('accepts every button sub_type in either case with its parameter', async () => {
    const button = (sub_type: string, parameters: unknown[]) => ({
      ...base,
      type: 'template',
      template: { name: 't', language: { code: 'en' }, components: [{ type: 'button', sub_type, index: 0, parameters }] },
    });
    for (const [sub, params] of [
      ['URL', [{ type: 'text', text: 'abc' }]],
      ['quick_reply', [{ type: 'payload', payload: 'p' }]],
      ['COPY_CODE', [{ type: 'coupon_code', coupon_code: 'SAVE10' }]],
      ['catalog', [{ type: 'action', action: { thumbnail_product_retailer_id: 'sku' } }]],
      [
        'mpm',
        [{ type: 'action', action: { thumbnail_product_retailer_id: 'sku', sections: [{ title: 'S', product_items: [{ product_retailer_id: 'a' }] }] } }],
      ],
      ['flow', [{ type: 'action', action: { flow_token: 't', flow_action_data: { a: 1 } } }]],
    ] as const) {
      expect(await accepted(button(sub, [...params]))).toBe(true);
    }
    expect(await refusal(button('url', [{ type: 'payload', payload: 'x' }]))).toBe('template.components.0.parameters.0.payload: is not a known parameter');
    expect(
      await refusal({
        ...base,
        type: 'template',
        template: {
          name: 't',
          language: { code: 'en' },
          components: [{ type: 'button', sub_type: 'url', index: '10', parameters: [{ type: 'text', text: 'x' }] }],
        },
      }),
    ).toBe('template.components.0.index: must be a button position from 0 to 9, as a string or an integer');
  });

  it('accepts limited-time offers and carousels', async () => {
    const carousel = {
      type: 'carousel',
      cards: [0, 1].map((i) => ({
        card_index: i,
        components: [
          { type: 'header', parameters: [{ type: 'image', image: { link: 'https://x.example/a.png' } }] },
          { type: 'body', parameters: [{ type: 'text', text: 'x' }] },
          { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'p' }] },
        ],
      })),
    };
    const offer = { type: 'limited_time_offer', parameters: [{ type: 'limited_time_offer', limited_time_offer: { expiration_time_ms: 1_900_000_000_000 } }] };
    expect(await accepted({ ...base, type: 'template', template: { name: 't', language: { code: 'en_US' }, components: [offer, carousel] } })).toBe(true);
  });

  it('refuses anything but a JSON object, and any garbage only with the invalid-parameter error', async () => {
    // As every body of the gateway: what is no object lacks messaging_product, an array's items are unknown fields.
    expect(await refusal(null)).toBe('messaging_product: is required: one of whatsapp');
    expect(await refusal([])).toBe('messaging_product: is required: one of whatsapp');
    expect(await refusal([base])).toBe('0: is not a known parameter');
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.constantFrom('text', 'interactive', 'contacts', 'location', 'image', 'reaction', 'template'), async (value, type) => {
        for (const body of [value, { ...base, type, [type]: value }]) {
          await validated(body).catch((error: unknown) => {
            if (!(error instanceof InvalidParameterException)) throw error;
          });
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** As a client's JSON arrives: `__proto__` an own key, no undefined. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const field = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.string({ maxLength: 3 }),
  fc.constantFrom('text', 'individual', 'group', 'image', '15550102030', '+1 555 010', '1234567890123456', N, 'x'.repeat(4097), '\ud83d\ude00'.repeat(4096)),
);
const stray = fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'toString', 'bogus', 'context', 'status', 'image'), fc.jsonValue(), { maxKeys: 1 });
const textContent = fc.oneof(
  fc.record({ body: field, preview_url: field }, { requiredKeys: [] }),
  fc.tuple(fc.record({ body: field }), stray).map(([content, extra]) => ({ ...content, ...extra })),
  field,
);
const textBodies = fc
  .tuple(fc.record({ messaging_product: field, recipient_type: field, to: field, type: field, text: textContent }, { requiredKeys: [] }), stray)
  .map(([body, extra]) => asJson({ ...body, ...extra }));

describe('the quick check of a text message', () => {
  it('accepts no body that full validation refuses', async () => {
    await fc.assert(
      fc.asyncProperty(textBodies, async (body) => !acceptsTextMessage(body) || (await accepted(body))),
      { numRuns: 3000 },
    );
  });

  it('takes the common text message, which then goes on as sent', async () => {
    const body = { ...base, recipient_type: 'individual', type: 'text', text: { body: 'Hello', preview_url: false } };
    expect(acceptsTextMessage(body)).toBe(true);
    expect(acceptsTextMessage({ ...base, text: { body: '\ud83d\ude00'.repeat(4096) } })).toBe(true);
    expect(await validated(body, SendMessageBody)).toBe(body);
    expect(acceptsTextMessage({ ...base, text: { body: 'Hello' }, context: { message_id: 'wamid.1' } })).toBe(false);
  });
});

/** A body of each kind, every part of every kind used. */
const samples: Record<string, unknown>[] = [
  { ...base, text: { body: 'hi', preview_url: true } },
  { ...base, type: 'image', image: { id: 'm1', caption: 'c' } },
  { ...base, type: 'document', document: { link: 'https://x.example/a.pdf', filename: 'a.pdf', caption: 'c' } },
  { ...base, type: 'audio', audio: { link: 'https://x.example/a.mp3' } },
  { ...base, type: 'sticker', sticker: { id: 's' } },
  { ...base, type: 'location', location: { latitude: 1, longitude: 2, name: 'n', address: 'a' } },
  { ...base, type: 'reaction', reaction: { message_id: 'w', emoji: '👍' } },
  { ...base, context: { message_id: 'w' }, biz_opaque_callback_data: 'x', recipient_type: 'individual', type: 'text', text: { body: 'b' } },
  { messaging_product: 'whatsapp', status: 'read', message_id: 'w' },
  {
    ...base,
    type: 'contacts',
    contacts: [
      {
        name: { formatted_name: 'A B', first_name: 'A' },
        birthday: '2000-01-02',
        addresses: [{ city: 'c', country_code: 'DE', type: 'HOME' }],
        emails: [{ email: 'a@b.c' }],
        org: { company: 'x' },
        phones: [{ phone: '+15550102030', wa_id: '123', type: 'CELL' }],
        urls: [{ url: 'https://a.b' }],
      },
    ],
  },
  {
    ...base,
    type: 'interactive',
    interactive: {
      type: 'button',
      header: { type: 'image', image: { id: 'h1' } },
      body: { text: 'b' },
      footer: { text: 'f' },
      action: {
        buttons: [
          { type: 'reply', reply: { id: 'a', title: 'A' } },
          { type: 'reply', reply: { id: 'b', title: 'B' } },
        ],
      },
    },
  },
  {
    ...base,
    type: 'interactive',
    interactive: {
      type: 'list',
      header: { type: 'text', text: 'h' },
      body: { text: 'b' },
      action: {
        button: 'Go',
        sections: [
          {
            title: 'S',
            rows: [
              { id: 'r1', title: 'R', description: 'd' },
              { id: 'r2', title: 'R' },
            ],
          },
          { title: 'T', rows: [{ id: 'r3', title: 'R' }] },
        ],
      },
    },
  },
  {
    ...base,
    type: 'interactive',
    interactive: {
      type: 'flow',
      body: { text: 'b' },
      action: {
        name: 'flow',
        parameters: {
          flow_message_version: '3',
          flow_token: 't',
          flow_id: '1',
          flow_cta: 'Go',
          mode: 'draft',
          flow_action: 'navigate',
          flow_action_payload: { screen: 'S', data: { image: { id: 'zz' } } },
        },
      },
    },
  },
  {
    ...base,
    type: 'template',
    template: {
      name: 't',
      language: { code: 'en_US', policy: 'deterministic' },
      namespace: 'ns',
      components: [
        { type: 'HEADER', parameters: [{ type: 'image', image: { id: 'm1' } }] },
        {
          type: 'BODY',
          parameters: [
            { type: 'text', text: 'a' },
            { type: 'TEXT', text: 'b' },
          ],
        },
        { type: 'button', sub_type: 'URL', index: 0, parameters: [{ type: 'text', text: 'abc' }] },
        {
          type: 'button',
          sub_type: 'mpm',
          index: '1',
          parameters: [
            { type: 'action', action: { thumbnail_product_retailer_id: 'sku', sections: [{ title: 'S', product_items: [{ product_retailer_id: 'a' }] }] } },
          ],
        },
        { type: 'button', sub_type: 'flow', index: '2', parameters: [{ type: 'action', action: { flow_token: 't', flow_action_data: { a: 1 } } }] },
        { type: 'limited_time_offer', parameters: [{ type: 'limited_time_offer', limited_time_offer: { expiration_time_ms: 1 } }] },
        {
          type: 'carousel',
          cards: [0, 1].map((i) => ({
            card_index: i,
            components: [
              { type: 'header', parameters: [{ type: 'video', video: { id: `v${i}` } }] },
              { type: 'body', parameters: [{ type: 'text', text: 'x' }] },
              { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'p' }] },
            ],
          })),
        },
        { type: 'header', parameters: [{ type: 'location', location: { latitude: 1, longitude: 1 } }] },
      ],
    },
  },
];
/** Changes one part of a body: replaced, removed, given an extra field or item. */
type Path = (string | number)[];
function paths(v: unknown, p: Path = [], out: Path[] = []): Path[] {
  out.push(p);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...p, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...p, k], out);
  return out;
}
/** A short field name drawn from any JSON value (String() throws on an object whose `toString` is not a function). */
function keyOf(val: unknown): string {
  return (typeof val === 'string' ? val : (JSON.stringify(val) ?? '')).slice(0, 8) || 'zz';
}
function mutate(body: unknown, path: Path, op: number, val: unknown): unknown {
  const c = structuredClone(body) as Record<string | number, unknown>;
  if (path.length === 0) return op === 0 ? val : c;
  let node = c;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (op === 0) node[last] = val;
  else if (op === 1) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete node[last];
  } else if (op === 2) {
    const t = node[last];
    if (t && typeof t === 'object' && !Array.isArray(t)) (t as Record<string, unknown>)[keyOf(val)] = 1;
    else if (Array.isArray(t)) t.push(t[0] ?? val);
  } else if (op === 3 && Array.isArray(node)) node.push(structuredClone(node[last as number]));
  return c;
}

const anyValue = fc.oneof(
  fc.constantFrom(
    null,
    '',
    'x',
    1,
    -1,
    100,
    1.5,
    true,
    [],
    {},
    'text',
    'image',
    'button',
    'list',
    'HEADER',
    'body',
    'read',
    'x'.repeat(70),
    'https://a.b',
    'url',
  ),
  fc.jsonValue({ maxDepth: 1 }),
);
const kindBodies = fc
  .tuple(fc.nat(samples.length - 1), fc.nat(10_000), fc.nat(3), anyValue, fc.nat(10_000), fc.nat(3), anyValue)
  .map(([si, pi, op, val, pi2, op2, val2]) => {
    const once = mutate(samples[si], paths(samples[si])[pi % paths(samples[si]).length], op, val);
    const twice = pi2 % 2 === 0 ? mutate(once, paths(once)[pi2 % paths(once).length], op2, val2) : once;
    return asJson(twice);
  });

describe('the quick check of every kind', () => {
  it('takes each kind as sent', async () => {
    for (const body of samples) {
      expect(acceptsMessage(body)).toBe(true);
      expect(await validated(body, SendMessageBody)).toBe(body);
    }
  });

  it('accepts no body that full validation refuses', async () => {
    await fc.assert(
      fc.asyncProperty(kindBodies, async (body) => !acceptsMessage(body) || (await accepted(body))),
      { numRuns: 3000 },
    );
  });
});
