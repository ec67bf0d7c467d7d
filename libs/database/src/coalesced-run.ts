import { setTimeout as sleep } from 'node:timers/promises';

export interface CoalescedRunOptions {
  /** Whether passes may run now (the owner has started and not stopped); read at each request and before each pass. */
  active: () => boolean;
  /** Pause before a pass that follows another at once, so the requests of a busy moment gather into one pass. */
  pauseMs?: number;
}

/**
 * A pass over pending rows (to relay, to number, to rebuild), run on request and one at a time: the requests made
 * while a pass runs coalesce into one more pass right after it. A pass resolves true when it left rows behind (it
 * stopped at its batch size), which runs another one as well. A pass handles its own errors.
 */
export class CoalescedRun {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly pass: () => Promise<boolean>,
    private readonly options: CoalescedRunOptions,
  ) {}

  /** Runs a pass now, or one more after the pass under way. */
  request(): void {
    if (!this.options.active()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => (this.running = null));
  }

  /** Resolves once a pass that began after this call has ended: what was pending when it was called is done. */
  async settle(): Promise<void> {
    await this.finished();
    this.request();
    await this.finished();
  }

  /** Resolves when no pass runs (at once when none does), or after `maxWaitMs`, whichever comes first. */
  async finished(maxWaitMs = Infinity): Promise<void> {
    const deadline = Date.now() + maxWaitMs;
    while (this.running) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      if (left === Infinity) {
        await this.running;
        continue;
      }
      const timeout = new AbortController();
      await Promise.race([this.running, sleep(left, undefined, { signal: timeout.signal }).catch(() => undefined)]);
      timeout.abort();
    }
  }

  private async loop(): Promise<void> {
    for (;;) {
      this.again = false;
      if (await this.pass()) this.again = true;
      if (!this.again || !this.options.active()) return;
      if (this.options.pauseMs) await sleep(this.options.pauseMs);
    }
  }
}
