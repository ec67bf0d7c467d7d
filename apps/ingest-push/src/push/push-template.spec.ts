import fc from 'fast-check';
import { fillTemplate, placeholders } from './push-template';

describe('push templates', () => {
  it('fills {{name}} and {{ name }} with their values', () => {
    const values = new Map([
      ['nome', 'Ana'],
      ['cupom', 'X10'],
    ]);
    expect(fillTemplate('Oi {{nome}}, use {{ cupom }}! {{nome}}', values)).toEqual({ text: 'Oi Ana, use X10! Ana', missing: [] });
  });

  it('names the placeholders without a value and replaces nothing', () => {
    expect(fillTemplate('{{a}} {{b}} {{c}} {{b}}', new Map([['a', '1']]))).toEqual({ text: '{{a}} {{b}} {{c}} {{b}}', missing: ['b', 'c'] });
  });

  it('leaves text without placeholders and lone braces alone', () => {
    expect(fillTemplate('{ x } {{}} {{ }} }}{{', new Map())).toEqual({ text: '{ x } {{}} {{ }} }}{{', missing: [] });
  });

  it('never expands a value that looks like a placeholder', () => {
    expect(
      fillTemplate(
        '{{a}}',
        new Map([
          ['a', '{{b}}'],
          ['b', 'no'],
        ]),
      ).text,
    ).toBe('{{b}}');
  });

  it('puts values in verbatim, $ patterns included', () => {
    expect(fillTemplate('{{a}}', new Map([['a', "$& $1 $$ $'"]])).text).toBe("$& $1 $$ $'");
  });

  it('replaces every placeholder whose value is given, for any text and values', () => {
    const name = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, fc.string()), { maxLength: 5 }),
        fc.array(
          fc.oneof(
            fc.string(),
            name.map((n) => `{{${n}}}`),
          ),
        ),
        (pairs, parts) => {
          const values = new Map(pairs);
          const text = parts.join('');
          const result = fillTemplate(text, values);
          const names = placeholders(text);
          expect(result.missing).toEqual(names.filter((n) => !values.has(n)));
          if (result.missing.length === 0) for (const n of names) expect(result.text.includes(`{{${n}}}`) && !values.get(n)?.includes(`{{${n}}}`)).toBe(false);
        },
      ),
    );
  });
});
