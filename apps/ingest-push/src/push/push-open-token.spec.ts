import fc from 'fast-check';
import { OPEN_TOKEN_LENGTH, OpenTokens } from './push-open-token';

describe('OpenTokens', () => {
  const tokens = new OpenTokens('a-secret-of-at-least-thirty-two-characters');

  it("signs each push id with its own token of a fixed length, and verifies only that push's token", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), (a, b) => {
        const token = tokens.sign(a);
        expect(token).toHaveLength(OPEN_TOKEN_LENGTH);
        expect(tokens.verify(a, token)).toBe(true);
        expect(tokens.verify(a.toUpperCase(), token)).toBe(true);
        if (a !== b) expect(tokens.verify(b, token)).toBe(false);
      }),
    );
  });

  it('refuses a token under another key, a truncated one and one of another length', () => {
    const id = '7d1c2b7e-1111-4a4a-9b9b-000000000001';
    const token = tokens.sign(id);
    expect(new OpenTokens('another-secret-of-at-least-thirty-two-chars').verify(id, token)).toBe(false);
    expect(tokens.verify(id, token.slice(0, -1))).toBe(false);
    expect(tokens.verify(id, `${token}x`)).toBe(false);
    expect(tokens.verify(id, '')).toBe(false);
  });
});
