import { IsIn } from 'class-validator';

/**
 * Where a service's queue workers run. `inline`: in the API process (the default); `off`: not here
 * (the API only relays); `only`: workers, /health and /metrics, no API, so sending scales apart.
 * The outbox relays run in every mode.
 */
export const WORKER_MODES = ['inline', 'off', 'only'] as const;
export type WorkerMode = (typeof WORKER_MODES)[number];

/** Checks a setting that picks a worker mode (WEBHOOK_WORKERS, PUSH_WORKERS). */
export function IsWorkerMode(): PropertyDecorator {
  return IsIn(WORKER_MODES);
}

/** Whether this process takes jobs. */
export function runsWorkers(mode: WorkerMode): boolean {
  return mode !== 'off';
}

/** The root module main.ts boots for a mode: the workers' module (no API) for `only`, the API's otherwise. */
export function rootModuleFor<T>(mode: WorkerMode, modules: { api: T; workers: T }): T {
  return mode === 'only' ? modules.workers : modules.api;
}
