import { idempotencyKeyOf, InvalidIdempotencyKeyException } from './idempotency-key.decorator';

describe('idempotencyKeyOf', () => {
  it('reads the key, or nothing when the header is absent', () => {
    expect(idempotencyKeyOf({ 'idempotency-key': 'order-42' })).toBe('order-42');
    expect(idempotencyKeyOf({ 'idempotency-key': '~'.repeat(255) })).toBe('~'.repeat(255));
    expect(idempotencyKeyOf({})).toBeUndefined();
  });

  it.each([[''], ['has space'], ['é'], ['x'.repeat(256)], ['tab\there']])('refuses %j with 400 naming the header', (key) => {
    const error = (() => {
      try {
        idempotencyKeyOf({ 'idempotency-key': key });
      } catch (e) {
        return e;
      }
      throw new Error('expected the key to be refused');
    })();
    expect(error).toBeInstanceOf(InvalidIdempotencyKeyException);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_IDEMPOTENCY_KEY' });
    expect((error as InvalidIdempotencyKeyException).body()).toEqual({
      message: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
      errors: { 'Idempotency-Key': ['The Idempotency-Key header must be 1 to 255 visible ASCII characters.'] },
    });
  });
});
