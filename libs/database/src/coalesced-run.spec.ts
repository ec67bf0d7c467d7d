import { CoalescedRun } from './coalesced-run';

/** A pass that waits until released, counting the passes that began. */
function gatedPass(leftBehind: () => boolean = () => false) {
  const state = { passes: 0, release: () => undefined as void };
  const pass = () =>
    new Promise<boolean>((resolve) => {
      state.passes += 1;
      state.release = () => resolve(leftBehind());
    });
  return { state, pass };
}

describe('CoalescedRun', () => {
  it('runs a pass on request and coalesces the requests made meanwhile into one more pass', async () => {
    const { state, pass } = gatedPass();
    const run = new CoalescedRun(pass, { active: () => true });
    run.request();
    run.request();
    run.request();
    expect(state.passes).toBe(1);
    state.release();
    await new Promise((r) => setImmediate(r));
    expect(state.passes).toBe(2);
    state.release();
    await run.finished();
    expect(state.passes).toBe(2);
  });

  it('runs again at once while a pass leaves rows behind', async () => {
    let left = 3;
    const passes: number[] = [];
    const run = new CoalescedRun(
      async () => {
        passes.push(left);
        left -= 1;
        return left > 0;
      },
      { active: () => true, pauseMs: 1 },
    );
    await run.settle();
    expect(passes).toEqual([3, 2, 1]);
  });

  it('runs nothing while inactive, and stops repeating once inactive', async () => {
    let active = false;
    let passes = 0;
    const run = new CoalescedRun(
      async () => {
        passes += 1;
        active = false;
        return true;
      },
      { active: () => active },
    );
    run.request();
    await run.finished();
    expect(passes).toBe(0);
    active = true;
    await run.settle();
    expect(passes).toBe(1);
  });

  it('settles only after a pass that began after the call', async () => {
    const { state, pass } = gatedPass();
    const run = new CoalescedRun(pass, { active: () => true });
    run.request();
    let settled = false;
    const settling = run.settle().then(() => (settled = true));
    state.release();
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect(state.passes).toBe(2);
    state.release();
    await settling;
    expect(settled).toBe(true);
  });

  it('stops waiting for a pass that hangs after maxWaitMs', async () => {
    const { pass } = gatedPass();
    const run = new CoalescedRun(pass, { active: () => true });
    run.request();
    const started = Date.now();
    await run.finished(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
