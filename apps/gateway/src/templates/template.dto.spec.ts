import 'reflect-metadata';
import fc from 'fast-check';
import { createValidationPipe, ValidationFailedException } from '@app/errors';
import { invalidParameter } from '../common/invalid-input.filter';
import { InvalidParameterException } from '../errors/network-error.exception';
import { CreateTemplateBody, templateDraft } from './template.dto';
import type { TemplateDraft } from '../network/chat-provider';

const pipe = createValidationPipe();

/** The body through the global pipe and the network's error rendering (InvalidInputFilter's), as a request takes them. */
async function parseTemplateDraft(body: unknown): Promise<TemplateDraft> {
  try {
    return templateDraft((await pipe.transform(body, { type: 'body', metatype: CreateTemplateBody })) as CreateTemplateBody);
  } catch (error) {
    throw error instanceof ValidationFailedException ? invalidParameter(error) : error;
  }
}

const accepted = (body: unknown): Promise<boolean> =>
  parseTemplateDraft(body).then(
    () => true,
    () => false,
  );

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

async function refusal(value: unknown): Promise<string> {
  try {
    await parseTemplateDraft(value);
  } catch (error) {
    if (error instanceof InvalidParameterException) return error.network.details;
    throw error;
  }
  throw new Error('accepted');
}

describe('CreateTemplateBody', () => {
  it('groups quick replies apart from the other buttons', async () => {
    for (const ok of [['Q', 'Q', 'U', 'P'], ['U', 'P', 'Q', 'Q'], ['Q'], ['U', 'U', 'P']]) expect(await accepted(draft([body(), buttons(...ok)]))).toBe(true);
    for (const bad of [
      ['Q', 'U', 'Q'],
      ['U', 'Q', 'P'],
      ['P', 'Q', 'U', 'Q'],
    ])
      expect(await refusal(draft([body(), buttons(...bad)]))).toContain('invalid combination of buttons');
  });

  it('normalises the category and finds the body text', async () => {
    expect(
      await parseTemplateDraft(
        draft(
          [body('Hi {{1}}!')].map((c) => ({ ...c, example: { body_text: [['Ann']] } })),
          { category: 'utility' },
        ),
      ),
    ).toMatchObject({ category: 'UTILITY', bodyText: 'Hi {{1}}!' });
  });

  it('wants variables numbered in order, with one example each', async () => {
    expect(await refusal(draft([body('{{2}} x')]))).toBe('components.0.text: variables must be numbered {{1}}, {{2}}, ... in order');
    expect(await refusal(draft([body('x {{1}}')]))).toBe('components.0.example: must be an object');
  });

  it('never fails with anything but the invalid-parameter error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        for (const candidate of [value, draft([value]), draft([body(), { type: 'BUTTONS', buttons: value }])]) {
          await parseTemplateDraft(candidate).catch((error: unknown) => {
            if (!(error instanceof InvalidParameterException)) throw error;
          });
        }
      }),
      { numRuns: 500 },
    );
  });
});
