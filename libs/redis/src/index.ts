export * from './redis.config';
export * from './redis.module';
