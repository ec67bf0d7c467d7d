/** A value a step may give at once, or later. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `next(value)` at once when `value` is already there, else when it settles: a chain of
 * steps that usually answer synchronously (cached credentials, in-process counters)
 * creates no promise and waits no microtask on that usual path.
 */
export function after<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
