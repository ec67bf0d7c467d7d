export interface WaitOptions {
  /** What is awaited, named in the failure. */
  what?: string;
  /** Fails after this long (with the last value seen) instead of leaving the bound to Jest's timeout. */
  timeoutMs?: number;
}

/**
 * The test kit's one way to wait: polls `check` every 50 ms until it returns a value (not undefined). Without
 * `timeoutMs`, Jest's timeout bounds the wait.
 */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, options: WaitOptions = {}): Promise<T> {
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what ?? 'a condition'}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
