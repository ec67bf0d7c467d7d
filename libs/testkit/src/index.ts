export * from './test-app';
export * from './worker-database';
