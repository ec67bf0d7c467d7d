import { join } from 'node:path';
import { ROOT } from '../../src/workspace';

export type TopologyApp = 'docstore' | 'gateway' | 'ingest-push';

/** What tools/topology.js's startTopology() resolves with (the script is plain JavaScript, checked by tools/tsconfig.json). */
export interface Topology {
  urls: Record<TopologyApp, string>;
  replicas(): Array<{ name: string; app: TopologyApp; role: 'api' | 'worker'; url: string; running: boolean }>;
  databaseUrl: string;
  poolerUrl: string;
  redisNodes: string;
  kill(name: string): Promise<void>;
  start(name: string): Promise<void>;
  restart(name: string): Promise<void>;
  cli(app: TopologyApp, args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export interface TopologyOptions {
  databaseUrl?: string;
  encryptionKeys?: string;
  env?: Record<string, string>;
  appEnv?: Partial<Record<TopologyApp, Record<string, string>>>;
  poolSize?: number;
}

/** `npm run topology`'s stack, started by the same code (tools/topology.js, reached by a built path like the test kit's). */
export function startTopology(options: TopologyOptions): Promise<Topology> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tools = require(join(ROOT, 'tools', 'topology')) as { startTopology(o: TopologyOptions): Promise<Topology> };
  return tools.startTopology(options);
}
