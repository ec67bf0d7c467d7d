import './tracing';
import 'reflect-metadata';
import { INGEST_PUSH_CLI } from './cli/ingest-push.cli';

// A command (`main.js apikey …`) loads only what it needs; the service's modules load only to serve.
void INGEST_PUSH_CLI.main(process.argv.slice(2), async () => (await import('./ingest-push.server')).serve());
