export * from './base-service.config';
export * from './config.module';
export * from './load-config';
