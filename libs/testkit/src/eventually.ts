/** Polls `check` every 50 ms until it returns a value (not undefined); Jest's timeout bounds the wait. */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}
