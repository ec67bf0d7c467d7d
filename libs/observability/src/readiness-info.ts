import { Injectable } from '@nestjs/common';

/** What one dependency reports: `up` or `down`, and anything useful beside it (latency, backlog). */
export type ReadinessReport = { status: 'up' | 'down' } & Record<string, unknown>;

/** Reports never wait longer than this; a check still running then reports down. */
const CHECK_TIMEOUT_MS = 1500;

/**
 * Dependencies a service reports on /health as information, never as failure: an
 * outside provider (the chat network, FCM, APNs) being away must not take pods out of
 * the Service, since the app still accepts and queues work. Features register a check
 * once (`readiness.register('fcm', () => ...)`); libs/server's /health reports them all.
 */
@Injectable()
export class ReadinessInfo {
  private readonly checks = new Map<string, () => Promise<ReadinessReport>>();

  register(name: string, check: () => Promise<ReadinessReport>): void {
    this.checks.set(name, check);
  }

  /** Runs every check concurrently, each bounded in time; a check that throws reports down with its message. */
  async report(): Promise<Record<string, ReadinessReport>> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]): Promise<[string, ReadinessReport]> => {
        let timer: NodeJS.Timeout | undefined;
        try {
          const timeout = new Promise<ReadinessReport>(
            (resolve) => (timer = setTimeout(() => resolve({ status: 'down', message: 'no answer in time' }), CHECK_TIMEOUT_MS)),
          );
          return [name, await Promise.race([check(), timeout])];
        } catch (error) {
          return [name, { status: 'down', message: (error as Error).message }];
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return Object.fromEntries(entries);
  }
}
