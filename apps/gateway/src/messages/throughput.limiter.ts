import { Inject, Injectable } from '@nestjs/common';
import { REDIS } from '@app/redis';
import type Redis from 'ioredis';
import { GatewayConfig } from '../config/gateway.config';
import { ThroughputException } from '../errors/network-error.exception';

/**
 * Messages per second per business phone, counted in Redis so every replica shares the
 * count (one fixed one-second window per phone). Over the tier: the network's
 * throughput error, before anything is sent. Without Redis, sends are not held back.
 */
@Injectable()
export class ThroughputLimiter {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly config: GatewayConfig,
  ) {}

  async take(phoneRef: string): Promise<void> {
    const second = Math.floor(Date.now() / 1000);
    const key = `tp:${phoneRef}:${second}`;
    let count: number;
    try {
      const results = await this.redis.multi().incr(key).expire(key, 2).exec();
      count = Number(results?.[0]?.[1] ?? 0);
    } catch {
      return;
    }
    if (count > this.config.MESSAGES_PER_SECOND) throw new ThroughputException(this.config.MESSAGES_PER_SECOND, 1);
  }
}
