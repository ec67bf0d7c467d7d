import fc from 'fast-check';
import { InvalidParameterException } from '../errors/network-error.exception';
import { parseMessageRequest } from './message.validator';

const N = 'whatsapp';
const base = { messaging_product: N, to: '15550102030' };

function refusal(body: unknown): string {
  try {
    parseMessageRequest(body, N);
  } catch (error) {
    if (error instanceof InvalidParameterException) return error.network.details;
    throw error;
  }
  throw new Error('accepted');
}

describe('parseMessageRequest', () => {
  it('defaults the type to text and keeps the body as sent', () => {
    const parsed = parseMessageRequest({ ...base, text: { body: 'hi', preview_url: true } }, N);
    expect(parsed).toEqual({
      kind: 'send',
      to: '15550102030',
      type: 'text',
      payload: { ...base, text: { body: 'hi', preview_url: true }, type: 'text' },
      mediaIds: [],
      template: undefined,
    });
  });

  it('reads mark-as-read without to or type', () => {
    expect(parseMessageRequest({ messaging_product: N, status: 'read', message_id: 'wamid.1' }, N)).toEqual({ kind: 'read', messageId: 'wamid.1' });
    expect(refusal({ messaging_product: N, status: 'read', message_id: 'wamid.1', type: 'text' })).toBe('type: is not a known parameter');
    expect(refusal({ messaging_product: N, status: 'delivered', message_id: 'wamid.1' })).toBe('status: must be one of read');
  });

  it('applies the text and interactive limits', () => {
    expect(() => parseMessageRequest({ ...base, text: { body: 'x'.repeat(4096) } }, N)).not.toThrow();
    expect(refusal({ ...base, text: { body: 'x'.repeat(4097) } })).toBe('text.body: must be at most 4096 characters long');
    const interactive = (body: string) => ({
      ...base,
      type: 'interactive',
      interactive: { type: 'button', body: { text: body }, action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] } },
    });
    expect(() => parseMessageRequest(interactive('x'.repeat(1024)), N)).not.toThrow();
    expect(refusal(interactive('x'.repeat(1025)))).toBe('interactive.body.text: must be at most 1024 characters long');
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
    expect(refusal(dup)).toBe('interactive.action.buttons.1.reply.id: must be unique among the buttons');
  });

  it('counts list rows across sections (at most 10)', () => {
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
    expect(() => parseMessageRequest(list(5, 5), N)).not.toThrow();
    expect(refusal(list(6, 5))).toBe('interactive.action.sections.1.rows.4: a list holds at most 10 rows in all its sections');
  });

  it('collects media ids with their fields, in templates too', () => {
    const parsed = parseMessageRequest(
      {
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
      },
      N,
    );
    expect(parsed).toMatchObject({
      mediaIds: [{ field: 'template.components.0.parameters.0.image.id', id: 'm1' }],
      template: { name: 't', language: 'en_US', bodyParameters: 2 },
    });
  });

  it('accepts every button sub_type in either case with its parameter', () => {
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
      expect(() => parseMessageRequest(button(sub, [...params]), N)).not.toThrow();
    }
    expect(refusal(button('url', [{ type: 'payload', payload: 'x' }]))).toBe('template.components.0.parameters.0.payload: is not a known parameter');
    expect(
      refusal({
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

  it('accepts limited-time offers and carousels', () => {
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
    expect(() =>
      parseMessageRequest({ ...base, type: 'template', template: { name: 't', language: { code: 'en_US' }, components: [offer, carousel] } }, N),
    ).not.toThrow();
  });

  it('refuses anything but a JSON object, and any garbage only with the invalid-parameter error', () => {
    for (const body of [null, 1, 'text', [], true]) expect(refusal(body)).toBe('body: must be a JSON object');
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom('text', 'interactive', 'contacts', 'location', 'image', 'reaction', 'template'), (value, type) => {
        for (const body of [value, { ...base, type, [type]: value }]) {
          try {
            parseMessageRequest(body, N);
          } catch (error) {
            if (!(error instanceof InvalidParameterException)) throw error;
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
