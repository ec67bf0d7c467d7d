export * from './rate-limit.config';
export * from './rate-limit.module';
export * from './rate-limiter.service';
