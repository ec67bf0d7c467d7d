export * from './encryption.config';
export * from './secret-cipher';
