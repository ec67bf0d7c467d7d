export * from './bootstrap';
export * from './configure-app';
export * from './core.module';
export * from './server.config';
