export * from './test-app';
export * from './worker-database';
export * from './service-basics';
export * from './webhook-receiver';
export * from './own-redis';
