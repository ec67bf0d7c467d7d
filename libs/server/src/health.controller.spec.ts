import { ServiceUnavailableException } from '@nestjs/common';
import type { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Metrics, ReadinessInfo } from '@app/observability';
import type { RedisClient } from '@app/redis';
import { HealthController } from './health.controller';

/** The value of one sample line of `name` (labels `service` only, or `to`). */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('HealthController readiness metrics', () => {
  it('reports the last readiness answer and counts each change of it, by the answer it changed to', async () => {
    let up = true;
    const health = {
      check: () => (up ? Promise.resolve({ status: 'ok', info: {}, error: {}, details: {} }) : Promise.reject(new ServiceUnavailableException())),
    } as unknown as HealthCheckService;
    const redis = { ping: () => Promise.resolve('PONG') } as unknown as RedisClient;
    const metrics = new Metrics('test');
    const controller = new HealthController(health, {} as TypeOrmHealthIndicator, redis, metrics, new ReadinessInfo());
    const readiness = async (expected: 'ok' | 'unavailable') => {
      const answer = controller.check();
      if (expected === 'ok') await answer;
      else await expect(answer).rejects.toBeInstanceOf(ServiceUnavailableException);
      return metrics.render();
    };

    let text = await metrics.render();
    expect(sample(text, 'health_ready')).toBeUndefined();
    text = await readiness('ok');
    expect(sample(text, 'health_ready')).toBe(1);
    expect(sample(text, 'health_readiness_changes_total')).toBeUndefined();
    up = false;
    text = await readiness('unavailable');
    text = await readiness('unavailable');
    expect(sample(text, 'health_ready')).toBe(0);
    expect(sample(text, 'health_readiness_changes_total', 'to="unready"')).toBe(1);
    up = true;
    text = await readiness('ok');
    expect(sample(text, 'health_ready')).toBe(1);
    expect(sample(text, 'health_readiness_changes_total', 'to="ready"')).toBe(1);
    expect(sample(text, 'health_readiness_changes_total', 'to="unready"')).toBe(1);
    metrics.onModuleDestroy();
  });
});
