export * from './app.exception';
export * from './app-exception.filter';
export * from './common.exception';
export * from './storable-text';
export * from './transient-fault';
export * from './validation.pipe';
export * from './api-errors.decorator';
