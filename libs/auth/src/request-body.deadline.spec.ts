import { BodyDeadlines, type BodyCutReason, type WatchedBody } from './request-body.deadline';

/** A body whose byte count and pause state the test sets. */
function body(bytes = 0): WatchedBody & { bytes: number; paused: boolean; cuts: BodyCutReason[] } {
  const b = {
    bytes,
    paused: false,
    cuts: [] as BodyCutReason[],
    bytesRead: () => b.bytes,
    waitingForClient: () => !b.paused,
    cut: (reason: BodyCutReason) => void b.cuts.push(reason),
  };
  return b;
}

describe('BodyDeadlines', () => {
  let deadlines: BodyDeadlines;
  beforeEach(() => {
    jest.useFakeTimers();
    deadlines = new BodyDeadlines({ windowMs: 10_000, minBytesPerSecond: 1000, maxMs: 60_000 });
  });
  afterEach(() => {
    deadlines.stop();
    jest.useRealTimers();
  });

  /** Advances `seconds`, the body gaining `bytesPerSecond` every second. */
  const run = (b: { bytes: number }, seconds: number, bytesPerSecond: number) => {
    for (let i = 0; i < seconds * 4; i++) {
      b.bytes += bytesPerSecond / 4;
      jest.advanceTimersByTime(250);
    }
  };

  it('cuts a body that sends nothing once one window and one check have passed', () => {
    const stalled = body(500);
    deadlines.watch(stalled);
    jest.advanceTimersByTime(9_750);
    expect(stalled.cuts).toEqual([]);
    jest.advanceTimersByTime(deadlines.stalledBoundMs - 9_750);
    expect(stalled.cuts).toEqual(['slow']);
    jest.advanceTimersByTime(5_000);
    expect(stalled.cuts).toEqual(['slow']);
  });

  it('gives no credit beyond one window: megabytes sent fast, then nothing, are cut one window later', () => {
    const burst = body();
    deadlines.watch(burst);
    run(burst, 2, 2_450_000);
    run(burst, 9.5, 0);
    expect(burst.cuts).toEqual([]);
    run(burst, 1, 0);
    expect(burst.cuts).toEqual(['slow']);
  });

  it('keeps a body at the minimum rate until the longest time in all, then cuts it', () => {
    const steady = body();
    deadlines.watch(steady);
    run(steady, 59.5, 1000);
    expect(steady.cuts).toEqual([]);
    run(steady, 1, 1000);
    expect(steady.cuts).toEqual(['overtime']);
  });

  it('cuts a body below the minimum rate over a window, and not while the reader pauses it', () => {
    const slow = body();
    const paused = body();
    deadlines.watch(slow);
    deadlines.watch(paused);
    paused.paused = true;
    run(slow, 9.5, 500);
    expect(slow.cuts).toEqual([]);
    run(slow, 1, 500);
    expect(slow.cuts).toEqual(['slow']);
    run(paused, 30, 0);
    expect(paused.cuts).toEqual([]);
  });

  it('cuts a body idle for idleMs when that is shorter than the window', () => {
    const idle = new BodyDeadlines({ windowMs: 30_000, minBytesPerSecond: 1, idleMs: 2_000 });
    const b = body();
    idle.watch(b);
    run(b, 1, 100);
    run(b, 1.75, 0);
    expect(b.cuts).toEqual([]);
    run(b, 0.5, 0);
    expect(b.cuts).toEqual(['idle']);
    idle.stop();
  });

  it('runs one timer for every body, and none once the last is forgotten', () => {
    const stops = [deadlines.watch(body()), deadlines.watch(body()), deadlines.watch(body())];
    expect(jest.getTimerCount()).toBe(1);
    for (const stop of stops) stop();
    expect(jest.getTimerCount()).toBe(0);
  });
});
