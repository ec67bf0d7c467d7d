import { DEFAULT_OPT_IN_KEYWORDS, DEFAULT_OPT_OUT_KEYWORDS, foldKeyword, inboundText, keywordOf } from './opt-out-keywords';

const defaults = { optOut: DEFAULT_OPT_OUT_KEYWORDS, optIn: DEFAULT_OPT_IN_KEYWORDS };

describe('opt-out keywords', () => {
  it('folds case, accents, surrounding spaces and punctuation', () => {
    expect(foldKeyword('  Párar! ')).toBe('PARAR');
    expect(foldKeyword('cancelar.')).toBe('CANCELAR');
    expect(foldKeyword('não  quero')).toBe('NAO QUERO');
  });

  it('takes a text that is a keyword, never one that only holds it', () => {
    expect(keywordOf('Parar', defaults)).toEqual({ change: 'out', keyword: 'PARAR' });
    expect(keywordOf('stop', defaults)).toEqual({ change: 'out', keyword: 'STOP' });
    expect(keywordOf('VOLTAR', defaults)).toEqual({ change: 'in', keyword: 'VOLTAR' });
    expect(keywordOf('please stop the noise', defaults)).toBeNull();
    expect(keywordOf(null, defaults)).toBeNull();
  });

  it('reads the text of text messages and quick-reply buttons only', () => {
    expect(inboundText({ type: 'text', text: { body: 'STOP' } })).toBe('STOP');
    expect(inboundText({ type: 'button', button: { text: 'Stop promotions', payload: 'x' } })).toBe('Stop promotions');
    expect(inboundText({ type: 'image', image: { caption: 'STOP' } })).toBeNull();
  });
});
