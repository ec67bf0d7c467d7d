import { Injectable, Optional } from '@nestjs/common';
import { Metrics } from '@app/observability';
import { WebhookRegistrationsRepository } from './webhook-registrations.repository';

/**
 * Read from PostgreSQL at scrape time (one aggregate over the webhooks table): `webhook_endpoints_failing`,
 * the active webhooks whose last attempt failed, and `webhook_failing_longest_seconds`, the longest such run
 * (a success ends a run). Per endpoint they are in the webhook's API (`failing_since`), not in labels,
 * so tenants' webhooks never multiply the series.
 */
@Injectable()
export class WebhookFailingMetrics {
  constructor(webhooks: WebhookRegistrationsRepository, @Optional() metrics?: Metrics) {
    if (!metrics) return;
    let runs: Promise<{ failing: number; longest_seconds: number }> | undefined;
    // Both gauges are collected in one scrape: one query serves the two.
    const read = () => {
      runs ??= webhooks.failingRuns().finally(() => setImmediate(() => (runs = undefined)));
      return runs;
    };
    metrics.gauge('webhook_endpoints_failing', 'Active webhooks in a run of failed deliveries (their last attempt failed).', [], async (set) => {
      set({}, (await read()).failing);
    });
    metrics.gauge(
      'webhook_failing_longest_seconds',
      'Seconds the longest current run of failed deliveries to one active webhook has lasted (0: none fails).',
      [],
      async (set) => {
        set({}, (await read()).longest_seconds);
      },
    );
  }
}
