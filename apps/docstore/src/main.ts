import './tracing';
import 'reflect-metadata';
import { DOCSTORE_CLI } from './cli/docstore.cli';

// A command (`main.js token …`) loads only what it needs; the service's modules load only to serve.
void DOCSTORE_CLI.main(process.argv.slice(2), async () => (await import('./docstore.server')).serve());
