export * from './test-app';
export * from './worker-database';
export * from './service-basics';
export * from './webhook-receiver';
export * from './docs-browser';
export * from './own-redis';
export * from './eventually';
export * from './metrics-sample';
