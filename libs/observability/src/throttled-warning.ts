import { Logger } from '@nestjs/common';

/**
 * A warning logged at most once per interval: for failures that repeat every few
 * milliseconds while Redis or PostgreSQL is away.
 */
export class ThrottledWarning {
  private readonly logger: Logger;
  private last = 0;

  constructor(
    context: string,
    private readonly intervalMs = 10_000,
  ) {
    this.logger = new Logger(context);
  }

  warn(message: string): void {
    if (Date.now() - this.last < this.intervalMs) return;
    this.last = Date.now();
    this.logger.warn(message);
  }
}
