import fc from 'fast-check';
import { checkPushItem, type ItemCheck } from './push-item.validator';

const base = {
  nm_envio: 'promo',
  nm_push: 'device-token-1',
  nm_titulo: 'Oi {{nome}}',
  nm_mensagem: 'Seu cupom: {{cupom}}',
  url_scheme: 'app://promo',
  dt_envio: '2026-03-10',
  hr_envio: '09:00:00',
  campos: 'nome,cupom',
  valor: 'Ana,X10',
  nm_plataforma: 'android',
};

const errorsOf = (result: ItemCheck) => (result.ok ? {} : result.errors);

describe('checkPushItem', () => {
  it('accepts the spec example and fills the variables in', () => {
    const result = checkPushItem(base, 'America/Sao_Paulo');
    expect(result).toEqual({
      ok: true,
      push: {
        name: 'promo',
        device: 'device-token-1',
        platform: 'android',
        title: 'Oi Ana',
        body: 'Seu cupom: X10',
        urlScheme: 'app://promo',
        dueAt: new Date('2026-03-10T12:00:00Z'),
        timeZone: 'America/Sao_Paulo',
      },
    });
  });

  it("reads dt_envio/hr_envio in the item's timezone, refuses an unknown zone, and needs a zone with local delivery", () => {
    const tokyo = checkPushItem({ ...base, timezone: 'Asia/Tokyo' }, 'America/Sao_Paulo');
    expect(tokyo.ok && tokyo.push).toMatchObject({ dueAt: new Date('2026-03-10T00:00:00Z'), timeZone: 'Asia/Tokyo' });
    expect(errorsOf(checkPushItem({ ...base, timezone: 'Mars/Base' }, 'UTC'))).toEqual({
      timezone: ['timezone must be an IANA time zone name such as America/Sao_Paulo.'],
    });
    const { dt_envio: _d, hr_envio: _h, ...undated } = base;
    expect(errorsOf(checkPushItem(undated, 'UTC', { date: '2030-01-01', time: '09:00:00' }))).toEqual({
      timezone: ['timezone is required with delivery "local".'],
    });
    const local = checkPushItem({ ...undated, timezone: 'Europe/Berlin' }, 'UTC', { date: '2030-01-01', time: '09:00:00' });
    expect(local.ok && local.push.dueAt).toEqual(new Date('2030-01-01T08:00:00Z'));
  });

  it('refuses a date beyond the scheduling horizon, naming it', () => {
    const result = checkPushItem({ ...base, dt_envio: '9999-12-31', hr_envio: '23:00:00' }, 'America/Sao_Paulo');
    expect(errorsOf(result)).toEqual({ dt_envio: ['dt_envio 9999-12-31 23:00:00 is more than 3653 days ahead; pushes are scheduled at most that far.'] });
  });

  it.each(['iOS', 'IOS', 'ios', 'Android', 'ANDROID', ' android '])('takes the platform %s in any case', (p) => {
    const result = checkPushItem({ ...base, nm_plataforma: p }, 'UTC');
    expect(result.ok && result.push.platform).toBe(p.trim().toLowerCase());
  });

  it('prefers valor_json to campos/valor, numbers and booleans as text', () => {
    const result = checkPushItem({ ...base, campos: 'x', valor: '', valor_json: '{"nome":"Bia","cupom":15}' }, 'UTC');
    expect(result.ok && [result.push.title, result.push.body]).toEqual(['Oi Bia', 'Seu cupom: 15']);
  });

  it('takes valor_json sent as an object too', () => {
    const result = checkPushItem({ ...base, valor_json: { nome: 'Bia', cupom: true } }, 'UTC');
    expect(result.ok && result.push.body).toBe('Seu cupom: true');
  });

  it('sends at once when neither date nor time is given', () => {
    const before = Date.now();
    const result = checkPushItem({ ...base, dt_envio: undefined, hr_envio: undefined }, 'UTC');
    expect(result.ok && result.push.dueAt.getTime()).toBeGreaterThanOrEqual(before);
  });

  it.each([
    ['dt_envio', { dt_envio: '2026-02-30' }],
    ['hr_envio', { hr_envio: '25:00:00' }],
    ['hr_envio', { hr_envio: undefined }],
    ['nm_plataforma', { nm_plataforma: 'windows' }],
    ['nm_plataforma', { nm_plataforma: undefined }],
    ['nm_push', { nm_push: '' }],
    ['nm_push', { nm_push: '   ' }],
    ['nm_push', { nm_push: undefined }],
    ['nm_push', { nm_push: 42 }],
    ['nm_mensagem', { nm_mensagem: '' }],
    ['valor', { valor: 'Ana' }],
    ['campos', { campos: 'nome,nome', valor: 'a,b' }],
    ['campos', { campos: 'no me,cupom' }],
    ['valor_json', { valor_json: 'not json' }],
    ['valor_json', { valor_json: '[1,2]' }],
    ['valor_json', { valor_json: 'null' }],
    ['valor_json', { valor_json: '{"nome":{"deep":1}}' }],
    ['nm_mensagem', { campos: 'nome', valor: 'Ana' }],
    ['extra', { extra: 1 }],
    ['valueOf', { valueOf: false }],
    ['constructor', { constructor: 'x' }],
    ['nm_titulo', { nm_titulo: 'x'.repeat(4097) }],
    ['payload', { nm_titulo: 'é'.repeat(2000), nm_mensagem: 'ü'.repeat(2000) }],
  ])('refuses a bad %s (case %#)', (field, change) => {
    expect(Object.keys(errorsOf(checkPushItem({ ...base, ...change }, 'UTC')))).toContain(field);
  });

  it('says which placeholders have no value', () => {
    expect(errorsOf(checkPushItem({ ...base, campos: 'nome', valor: 'Ana' }, 'UTC'))).toEqual({ nm_mensagem: ['No value for {{cupom}}.'] });
  });

  it.each([null, 1, 'x', [], [base]])('refuses %j as an item', (item) => {
    expect(errorsOf(checkPushItem(item, 'UTC'))).toEqual({ item: ['Each push must be an object.'] });
  });

  it('never throws and either accepts with a due date or names fields, for any input', () => {
    const field = fc.constantFrom(...Object.keys(base), 'valor_json', 'other');
    const value = fc.oneof(fc.string(), fc.jsonValue(), fc.constantFrom('2026-02-29', '23:59:59', 'IOS', '{"a":1}'));
    fc.assert(
      fc.property(
        fc.oneof(fc.dictionary(field, value), fc.record({ ...Object.fromEntries(Object.keys(base).map((k) => [k, value])) }), fc.anything()),
        (item) => {
          const result = checkPushItem(item, 'Europe/Berlin');
          if (result.ok) {
            expect(Number.isNaN(result.push.dueAt.getTime())).toBe(false);
            expect(['ios', 'android']).toContain(result.push.platform);
            expect(result.push.device.trim()).not.toBe('');
          } else {
            expect(Object.keys(result.errors).length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('local delivery at 09:00: 100,000 items over 24 zones, each due when its own clock shows 09:00 on the day', () => {
    const zones = Intl.supportedValuesOf('timeZone')
      .filter((z) => /^(America|Europe|Asia|Africa|Australia|Pacific)\//.test(z))
      .slice(0, 24);
    expect(zones).toHaveLength(24);
    const clocks = new Map(
      zones.map((z) => [
        z,
        new Intl.DateTimeFormat('en-CA', {
          timeZone: z,
          hourCycle: 'h23',
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
        }),
      ]),
    );
    const { dt_envio: _d, hr_envio: _h, ...undated } = base;
    const local = { date: '2030-11-05', time: '09:00:00', dueByZone: new Map<string, number>() };
    const first: number[] = [];
    for (let i = 0; i < 100_000; i++) {
      const zone = zones[i % 24];
      const check = checkPushItem({ ...undated, timezone: zone }, 'UTC', local);
      if (!check.ok) throw new Error(JSON.stringify(check.errors));
      if (i < 24) {
        expect(clocks.get(zone)!.format(check.push.dueAt)).toBe('2030-11-05, 09:00:00');
        first.push(check.push.dueAt.getTime());
      } else expect(check.push.dueAt.getTime()).toBe(first[i % 24]);
    }
  });
});
