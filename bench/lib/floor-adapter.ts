import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExpressAdapter } from '@nestjs/platform-express';

/**
 * The HTTP adapter of a floor: Nest's stock ExpressAdapter, or with BENCH_FLOOR_PROTOTYPES=1
 * the services' own ExpressServerAdapter (libs/server, taken from the built service under
 * dist/), which creates requests with Express's prototypes so that each one keeps the same
 * V8 hidden class. The second floor is the stack's price without that per-request cost: what
 * the services' features cost on top of the same server (bench/README.md).
 */
export function floorAdapter(): ExpressAdapter {
  if (process.env.BENCH_FLOOR_PROTOTYPES !== '1') return new ExpressAdapter();
  const built = ['docstore', 'gateway'].map((app) => path.resolve(__dirname, `../../dist/${app}/libs/server/src/express-server.adapter.js`)).find((file) => fs.existsSync(file));
  if (!built) throw new Error('BENCH_FLOOR_PROTOTYPES=1 needs a built service (npx nx build docstore)');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ExpressServerAdapter } = require(built) as { ExpressServerAdapter: new () => ExpressAdapter };
  return new ExpressServerAdapter();
}
