export * from './base-service.config';
export * from './config.module';
export * from './database.config';
export * from './load-config';
