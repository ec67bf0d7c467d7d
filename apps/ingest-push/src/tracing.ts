import { startTracing } from '@app/observability/tracing';

// Imported first by main.ts: the SDK patches http, express, Nest, pg and ioredis before anything loads them.
startTracing('ingest-push', process.argv[2]);
