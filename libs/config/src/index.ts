export * from './config.module';
export * from './load-config';
export * from './deploy-environment';
