import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { Metrics, type CountableQueue } from '@app/observability';

/** What libs/queue's QueueWorker offers (matched by shape: libs/queue's tests depend on this lib). */
interface ObservableWorker {
  readonly queueName: string;
  onFinished(listener: (outcome: 'completed' | 'failed') => void): void;
}

/**
 * Finds every queue producer and worker among the app's providers at start, so each
 * queue's backlog reaches /metrics and /health, and each worker's job outcomes reach
 * /metrics, without the features wiring anything.
 */
@Injectable()
export class QueueMetricsExplorer implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    for (const { instance } of this.discovery.getProviders()) {
      if (isQueue(instance)) this.metrics.watchQueue(instance);
      if (isWorker(instance)) instance.onFinished((outcome) => this.metrics.jobFinished(instance.queueName, outcome));
    }
  }
}

function isQueue(value: unknown): value is CountableQueue {
  return typeof (value as CountableQueue | null)?.getJobCounts === 'function' && typeof (value as CountableQueue).name === 'string';
}

function isWorker(value: unknown): value is ObservableWorker {
  return typeof (value as ObservableWorker | null)?.onFinished === 'function' && typeof (value as ObservableWorker).queueName === 'string';
}
