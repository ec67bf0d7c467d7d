import { ProgressBar } from './progress-bar';

describe('ProgressBar', () => {
  const MB = 1024 * 1024;
  let lines: string[];
  const out = { isTTY: false, write: (text: string) => (lines.push(text), true) } as unknown as NodeJS.WriteStream;

  beforeEach(() => {
    lines = [];
    jest.useFakeTimers({ now: new Date('2026-11-27T12:00:00Z') });
  });
  afterEach(() => jest.useRealTimers());

  it('after resuming, gives no ETA from the first chunks, then one from the bytes this run sent', () => {
    const bar = new ProgressBar(1000 * MB, 'csv', out);
    bar.skip(900 * MB); // stored by an earlier run
    bar.add(Buffer.alloc(64 * 1024));
    expect(lines.at(-1)).toMatch(/^\[#{27}\.{3}\] 90\.0% 900\.1\/1000\.0 MB/);
    expect(lines.at(-1)).not.toContain('ETA');
    // 10 MB in 10 s: 1 MB/s, with 90 MB to go.
    for (let s = 1; s <= 10; s++) {
      jest.setSystemTime(Date.now() + 1000);
      bar.add(Buffer.alloc(MB - (s === 1 ? 64 * 1024 : 0)));
    }
    bar.show();
    expect(lines.at(-1)).toContain(', 1.0 MB/s, ETA 90s');
  });
});
