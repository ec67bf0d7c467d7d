import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator, type HealthCheckResult } from '@nestjs/terminus';
import { Public } from '@app/auth';
import { REDIS } from '@app/redis';
import type Redis from 'ioredis';

/**
 * `/health` (readiness): 200 while PostgreSQL answers, 503 otherwise. Redis is reported
 * but does not fail it: without Redis, services keep answering (rate limits count per
 * process, webhook events wait in the outbox). `/health/live` (liveness) only says the
 * process serves HTTP, so a database outage never restarts pods.
 */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Get()
  @HealthCheck()
  async check(): Promise<HealthCheckResult> {
    const [result, redis] = await Promise.all([this.health.check([() => this.db.pingCheck('database', { timeout: 1500 })]), this.redisStatus()]);
    return { ...result, info: { ...result.info, redis }, details: { ...result.details, redis } };
  }

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  private async redisStatus(): Promise<{ status: 'up' | 'down'; message?: string }> {
    try {
      await this.redis.ping();
      return { status: 'up' };
    } catch (error) {
      return { status: 'down', message: (error as Error).message };
    }
  }
}
