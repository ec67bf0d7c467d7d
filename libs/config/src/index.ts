export * from './config.module';
export * from './load-config';
