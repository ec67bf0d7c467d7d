export * from './outbox-relay';
export * from './queue-connection';
export * from './queue-producer';
export * from './queue-worker';
export * from './retry';
