import { reviewRejection, storedBodyText } from './template-review';

describe('review', () => {
  it('rejects bodies starting or ending with a variable, or with adjacent ones', () => {
    expect(reviewRejection('Hello {{1}}, welcome.')).toBeNull();
    expect(reviewRejection('{{1}} hello')).toBe('INVALID_FORMAT');
    expect(reviewRejection('hello {{1}}')).toBe('INVALID_FORMAT');
    expect(reviewRejection('a {{1}} {{2}} b')).toBe('INVALID_FORMAT');
  });
});

describe('storedBodyText', () => {
  it('reads the BODY text of stored components, in any case, and is empty without one', () => {
    expect(
      storedBodyText([
        { type: 'HEADER', format: 'TEXT', text: 'Hi' },
        { type: 'body', text: 'Order {{1}} shipped.' },
      ]),
    ).toBe('Order {{1}} shipped.');
    expect(storedBodyText([{ type: 'BODY', add_security_recommendation: true }])).toBe('');
    expect(storedBodyText([])).toBe('');
  });
});
