import { variablesOf } from './template-variables';

describe('variablesOf', () => {
  it('lists the {{n}} variables of a text in order', () => {
    expect(variablesOf('a {{1}} b {{2}}')).toEqual([1, 2]);
    expect(variablesOf('{{2}}{{1}} and {{ 3 }}')).toEqual([2, 1]);
    expect(variablesOf('none')).toEqual([]);
  });
});
