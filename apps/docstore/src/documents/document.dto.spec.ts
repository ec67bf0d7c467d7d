import 'reflect-metadata';
import fc from 'fast-check';
import { createValidationPipe } from '@app/errors';
import { acceptsBulkBody, acceptsDocumentBody, BulkBodyDto, DocumentBodyDto, MAX_TTL_SECONDS } from './document.dto';

// Subclasses carry the decorators but no quick check: the pipe validates them in full.
class FullDocumentBody extends DocumentBodyDto {}
class FullBulkBody extends BulkBodyDto {}

const pipe = createValidationPipe();
const fullyValid = (value: unknown, metatype: typeof FullDocumentBody | typeof FullBulkBody): Promise<boolean> =>
  pipe.transform(value, { type: 'body', metatype }).then(
    () => true,
    () => false,
  );
/** As a client's JSON arrives: `__proto__` an own key, no undefined. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const text = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 4 }),
  fc.constantFrom('a/b', 'x\u0001', 'x'.repeat(256), 'é\ud83d\ude00'),
  fc.integer(),
  fc.constant(null),
);
const data = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue(), { maxKeys: 3 }),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.constant(null),
  fc.string({ maxLength: 3 }),
);
const expiresAt = fc.oneof(
  fc.date({ min: new Date(0), max: new Date(4102444800000), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2030-02-30T00:00:00Z', '2030-01-01', '2030-01-01T00:00:00', 'tomorrow', '', '2030-13-01T00:00:00Z'),
  fc.integer(),
  fc.constant(null),
);
const ttl = fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constantFrom(MAX_TTL_SECONDS, MAX_TTL_SECONDS + 1, 1.5, '5', 1e21), fc.constant(null));
const stray = fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'toString', 'bogus', 'prototype'), fc.jsonValue(), { maxKeys: 1 });

/** Any mix of the fields, and (as often) a valid body with one field changed, removed or added. */
function bodies(fields: Record<string, fc.Arbitrary<unknown>>, valid: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const mixed = fc.tuple(fc.record(fields, { requiredKeys: [] }), stray).map(([some, extra]) => ({ ...some, ...extra }));
  const nearlyValid = fc.oneof(
    ...Object.entries(fields).map(([name, arbitrary]) => arbitrary.map((value) => ({ ...valid, [name]: value }))),
    fc.constantFrom(...Object.keys(valid)).map((name) => ({ ...valid, [name]: undefined })),
    stray.map((extra) => ({ ...valid, ...extra })),
  );
  return fc.oneof(mixed, nearlyValid);
}

const documentBody = bodies(
  { environment: text, context: text, type: text, key: text, data, expires_at: expiresAt, ttl },
  { environment: 'prod', context: 'shop', type: 'order', key: 'o-1', data: { total: 3 } },
).map(asJson);
const bulkItem = bodies({ key: text, data, expires_at: expiresAt, ttl }, { key: 'o-1', data: {} });
const bulkBody = fc
  .tuple(
    fc.oneof({ arbitrary: fc.array(bulkItem, { minLength: 1, maxLength: 2 }), weight: 8 }, fc.constant([]), fc.constant(null), fc.string({ maxLength: 2 })),
    stray,
  )
  .map(([documents, extra]) => asJson({ documents, ...extra }));

describe('the quick checks of the write bodies', () => {
  it('accept no document body that full validation refuses', async () => {
    await fc.assert(
      fc.asyncProperty(documentBody, async (body) => !acceptsDocumentBody(body) || (await fullyValid(body, FullDocumentBody))),
      { numRuns: 2000 },
    );
  });

  it('accept no bulk body that full validation refuses', async () => {
    await fc.assert(
      fc.asyncProperty(bulkBody, async (body) => !acceptsBulkBody(body) || (await fullyValid(body, FullBulkBody))),
      { numRuns: 2000 },
    );
  });

  it('take the everyday bodies, so they skip the full pass', () => {
    expect(acceptsDocumentBody({ environment: 'prod', context: 'shop', type: 'order', key: 'o-1', data: { total: 3 } })).toBe(true);
    expect(acceptsDocumentBody({ environment: 'prod', context: 'shop', type: 'order', key: 'o-1', data: {}, ttl: 60, expires_at: null })).toBe(true);
    expect(
      acceptsBulkBody({
        documents: [
          { key: 'a', data: {} },
          { key: 'b', data: { x: 1 }, expires_at: '2030-01-01T00:00:00Z' },
        ],
      }),
    ).toBe(true);
  });

  it('leave what they do not accept to the full validation, which names the field', async () => {
    const refused = pipe.transform(
      { environment: 'prod', context: 'shop', type: 'order', key: 'o-1', data: {}, ttl: 0 },
      { type: 'body', metatype: DocumentBodyDto },
    );
    await expect(refused).rejects.toMatchObject({ extras: { errors: { ttl: ['ttl must not be less than 1'] } } });
  });
});
