import fc from 'fast-check';
import { InvalidParameterException } from '../errors/network-error.exception';
import { parseTemplateDraft } from './template.validator';

const body = (text = 'Hello') => ({ type: 'BODY', text });
const draft = (components: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'n', category: 'MARKETING', language: 'en_US', components, ...extra });
const buttons = (...types: string[]) => ({
  type: 'BUTTONS',
  buttons: types.map((t) =>
    t === 'Q'
      ? { type: 'QUICK_REPLY', text: 'q' }
      : t === 'U'
        ? { type: 'URL', text: 'u', url: 'https://a.example' }
        : { type: 'PHONE_NUMBER', text: 'p', phone_number: '15550102030' },
  ),
});

function refusal(value: unknown): string {
  try {
    parseTemplateDraft(value);
  } catch (error) {
    if (error instanceof InvalidParameterException) return error.network.details;
    throw error;
  }
  throw new Error('accepted');
}

describe('parseTemplateDraft', () => {
  it('groups quick replies apart from the other buttons', () => {
    for (const ok of [['Q', 'Q', 'U', 'P'], ['U', 'P', 'Q', 'Q'], ['Q'], ['U', 'U', 'P']])
      expect(() => parseTemplateDraft(draft([body(), buttons(...ok)]))).not.toThrow();
    for (const bad of [
      ['Q', 'U', 'Q'],
      ['U', 'Q', 'P'],
      ['P', 'Q', 'U', 'Q'],
    ])
      expect(refusal(draft([body(), buttons(...bad)]))).toContain('invalid combination of buttons');
  });

  it('normalises the category and finds the body text', () => {
    expect(
      parseTemplateDraft(
        draft(
          [body('Hi {{1}}!')].map((c) => ({ ...c, example: { body_text: [['Ann']] } })),
          { category: 'utility' },
        ),
      ),
    ).toMatchObject({ category: 'UTILITY', bodyText: 'Hi {{1}}!' });
  });

  it('wants variables numbered in order, with one example each', () => {
    expect(refusal(draft([body('{{2}} x')]))).toBe('components.0.text: variables must be numbered {{1}}, {{2}}, ... in order');
    expect(refusal(draft([body('x {{1}}')]))).toBe('components.0.example: must be an object');
  });

  it('never fails with anything but the invalid-parameter error', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        for (const candidate of [value, draft([value]), draft([body(), { type: 'BUTTONS', buttons: value }])]) {
          try {
            parseTemplateDraft(candidate);
          } catch (error) {
            if (!(error instanceof InvalidParameterException)) throw error;
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
