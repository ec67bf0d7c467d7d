export * from './lane-job';
export * from './outbox-relay';
export * from './queue-connection';
export * from './queue-lane';
export * from './queue-producer';
export * from './queue-worker';
export * from './retry';
export * from './worker-mode';
