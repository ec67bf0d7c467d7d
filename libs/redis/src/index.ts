export * from './redis-client';
export * from './redis.config';
export * from './redis.module';
