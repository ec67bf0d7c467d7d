import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator, type HealthCheckResult } from '@nestjs/terminus';
import { Public } from '@app/auth';
import { Metrics, ReadinessInfo, type MetricCounter, type ReadinessReport } from '@app/observability';
import { REDIS, type RedisClient } from '@app/redis';

/**
 * `/health` (readiness): 200 while PostgreSQL answers, 503 otherwise. Redis, each queue's
 * backlog and what features register with ReadinessInfo (outside providers) are reported
 * as information but never fail it: without Redis, services keep answering (rate limits count per
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
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly metrics: Metrics,
    private readonly readiness: ReadinessInfo,
  ) {
    metrics.gauge(
      'health_ready',
      'Whether the last GET /health (readiness) of this process answered 200 (1) or 503 (0); absent before the first.',
      [],
      (set) => {
        if (this.ready !== undefined) set({}, this.ready ? 1 : 0);
      },
    );
    this.transitions = metrics.counter(
      'health_readiness_changes_total',
      'Times the readiness answer of this process changed, by the answer it changed to (ready, unready).',
      ['to'],
    );
  }

  private ready?: boolean;
  private readonly transitions: MetricCounter<'to'>;

  @Get()
  @HealthCheck()
  async check(): Promise<HealthCheckResult> {
    const [result, redis, queues, others] = await Promise.all([
      this.health.check([() => this.db.pingCheck('database', { timeout: 1500 })]).then(
        (answer) => (this.answered(true), answer),
        (error: unknown) => {
          this.answered(false);
          throw error;
        },
      ),
      this.redisStatus(),
      this.queueBacklog(),
      this.readiness.report(),
    ]);
    const info = { redis, ...queues, ...others };
    return { ...result, info: { ...result.info, ...info }, details: { ...result.details, ...info } };
  }

  /** Counts a change of the readiness answer (the first answer is no change). */
  private answered(ready: boolean): void {
    if (this.ready !== undefined && this.ready !== ready) this.transitions.inc({ to: ready ? 'ready' : 'unready' });
    this.ready = ready;
  }

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Each queue this process uses, with its backlog: `queue:webhook-delivery: {status, waiting, active, delayed, failed}`. */
  private async queueBacklog(): Promise<Record<string, ReadinessReport>> {
    const out: Record<string, ReadinessReport> = {};
    for (const [name, counts] of await this.metrics.queueCounts()) {
      out[`queue:${name}`] = counts
        ? { status: 'up', waiting: counts.waiting, active: counts.active, delayed: counts.delayed, failed: counts.failed }
        : { status: 'down', message: 'Redis did not answer in time' };
    }
    return out;
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
