import './tracing';
import 'reflect-metadata';
import { GATEWAY_CLI } from './cli/gateway.cli';

// A command (`main.js apikey …`) loads only what it needs; the service's modules load only to serve.
void GATEWAY_CLI.main(process.argv.slice(2), async () => (await import('./gateway.server')).serve());
