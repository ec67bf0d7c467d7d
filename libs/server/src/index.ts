export * from './bootstrap';
export * from './configure-app';
export * from './core.module';
export * from './express-server.adapter';
export * from './idempotency-key.decorator';
export * from './server.config';
export { DRAINING_EVENT } from './graceful-shutdown';
