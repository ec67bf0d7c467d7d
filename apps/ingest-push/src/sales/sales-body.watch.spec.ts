import type { AppException } from '@app/errors';
import { SalesBodyWatch, type WatchedBody } from './sales-body.watch';
import { SalesConfig } from './sales.config';

function config(over: Partial<SalesConfig>): SalesConfig {
  return Object.assign(new SalesConfig(), over);
}

/** A body whose byte count and pause state the test sets. */
function body(): WatchedBody & { bytes: number; paused: boolean; cuts: AppException[] } {
  const b = {
    bytes: 0,
    paused: false,
    cuts: [] as AppException[],
    bytesRead: () => b.bytes,
    waitingForClient: () => !b.paused,
    cut: (e: AppException) => void b.cuts.push(e),
  };
  return b;
}

describe('SalesBodyWatch', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Advances `seconds`, the body gaining `bytesPerSecond` every second. */
  const run = (b: { bytes: number }, seconds: number, bytesPerSecond: number) => {
    for (let i = 0; i < seconds * 4; i++) {
      b.bytes += bytesPerSecond / 4;
      jest.advanceTimersByTime(250);
    }
  };

  it('cuts a body slower than the minimum over the window, not before a window has passed', () => {
    const watch = new SalesBodyWatch(config({ INGEST_MIN_BYTES_PER_SECOND: 1000, INGEST_RATE_WINDOW_SECONDS: 4, INGEST_IDLE_TIMEOUT_MS: 60_000 }));
    const slow = body();
    watch.watch(slow);
    run(slow, 3.5, 500);
    expect(slow.cuts).toEqual([]);
    run(slow, 1, 500);
    expect(slow.cuts.map((e) => e.code)).toEqual(['SALES_BODY_TOO_SLOW']);
    watch.onModuleDestroy();
  });

  it('leaves a body at the minimum alone, and one whose slowness is backpressure', () => {
    const watch = new SalesBodyWatch(config({ INGEST_MIN_BYTES_PER_SECOND: 1000, INGEST_RATE_WINDOW_SECONDS: 2, INGEST_IDLE_TIMEOUT_MS: 1000 }));
    const steady = body();
    const paused = body();
    watch.watch(steady);
    watch.watch(paused);
    paused.paused = true;
    run(steady, 10, 1200);
    expect(steady.cuts).toEqual([]);
    expect(paused.cuts).toEqual([]);
    // Once the database takes data again, the client's time counts from there.
    paused.paused = false;
    run(paused, 0.75, 0);
    expect(paused.cuts).toEqual([]);
    run(paused, 0.5, 0);
    expect(paused.cuts.map((e) => e.code)).toEqual(['SALES_BODY_TIMEOUT']);
    watch.onModuleDestroy();
  });

  it('runs one timer for every body, and none once the last is forgotten', () => {
    const watch = new SalesBodyWatch(config({}));
    const stops = [watch.watch(body()), watch.watch(body()), watch.watch(body())];
    expect(jest.getTimerCount()).toBe(1);
    for (const stop of stops) stop();
    expect(jest.getTimerCount()).toBe(0);
  });
});
