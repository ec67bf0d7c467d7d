import type { IncomingMessage } from 'node:http';
import { BodyDeadlines } from './request-body.deadline';

/** A request whose socket has read `bytes` so far. */
function request(bytes = 0): IncomingMessage & { socket: { bytesRead: number } } {
  return { socket: { bytesRead: bytes } } as unknown as IncomingMessage & { socket: { bytesRead: number } };
}

describe('BodyDeadlines', () => {
  let deadlines: BodyDeadlines;
  beforeEach(() => {
    jest.useFakeTimers();
    deadlines = new BodyDeadlines({ firstMs: 10_000, minBytesPerSecond: 1000 });
  });
  afterEach(() => {
    deadlines.stop();
    jest.useRealTimers();
  });

  it('cuts a body that sends nothing once the first deadline and one check have passed', () => {
    const stalled = jest.fn();
    deadlines.watch(request(500), stalled);
    jest.advanceTimersByTime(10_000);
    expect(stalled).not.toHaveBeenCalled();
    jest.advanceTimersByTime(deadlines.boundMs - 10_000);
    expect(stalled).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(5_000);
    expect(stalled).toHaveBeenCalledTimes(1);
  });

  it('keeps a body that sends at least the minimum rate, however long it takes', () => {
    const stalled = jest.fn();
    const req = request();
    deadlines.watch(req, stalled);
    for (let second = 0; second < 60; second++) {
      req.socket.bytesRead += 1000;
      jest.advanceTimersByTime(1000);
    }
    expect(stalled).not.toHaveBeenCalled();
  });

  it('cuts a body slower than the minimum rate once its credit runs out', () => {
    const stalled = jest.fn();
    const req = request();
    deadlines.watch(req, stalled);
    let seconds = 0;
    while (!stalled.mock.calls.length && seconds < 100) {
      req.socket.bytesRead += 500; // half the rate: 10 s + 0.5 s per second sent, so about 20 s
      jest.advanceTimersByTime(1000);
      seconds++;
    }
    expect(seconds).toBeGreaterThanOrEqual(19);
    expect(seconds).toBeLessThanOrEqual(21);
  });

  it('forgets a body once it is unwatched', () => {
    const stalled = jest.fn();
    deadlines.watch(request(), stalled)();
    jest.advanceTimersByTime(60_000);
    expect(stalled).not.toHaveBeenCalled();
  });
});
