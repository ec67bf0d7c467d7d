import { Injectable } from '@nestjs/common';
import { RateLimiter } from '@app/rate-limit';
import { MessagesConfig } from './messages.config';
import { ThroughputException } from '../errors/network-error.exception';

const SECOND_MS = 1000;

/**
 * Messages per second per business phone, shared by every replica: one-second windows
 * of the same limiter as the rate limits (counted locally between syncs, exact for small
 * tiers; the README gives the overshoot bound). Over the tier: the network's throughput
 * error, before anything is sent. While Redis is away each replica counts on its own.
 */
@Injectable()
export class ThroughputLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: MessagesConfig,
  ) {}

  async take(phoneRef: string): Promise<void> {
    const result = await this.limiter.hit('throughput', phoneRef, this.config.MESSAGES_PER_SECOND, Date.now(), SECOND_MS);
    if (result.exceeded) throw new ThroughputException(this.config.MESSAGES_PER_SECOND, result.retryAfter);
  }
}
