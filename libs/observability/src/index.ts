export * from './route-label';
export * from './metrics.service';
export * from './observability.module';
export * from './readiness-info';
export * from './throttled-warning';
export * from './trace-context';
