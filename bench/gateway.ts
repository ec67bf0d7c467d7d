/**
 * Gateway: text messages through the `cloud` provider to a loopback fake of the network
 * (lib/sink.ts), in one run:
 *   1. throughput at full speed, the gateway (every feature on) against the bare NestJS floor
 *      (floors/bare-nest.ts, BENCH_FLOOR=gateway), in rounds alternating the order;
 *   2. p50 at a fixed, evenly paced rate: the fake called directly, the floor and the gateway;
 *   3. memory: BENCH_UPLOADS uploads of 1 MB on a restarted gateway, RSS before and after.
 *
 *   node bench/run.js gateway   (BENCH_ROUNDS, BENCH_DURATION, BENCH_RATE, BENCH_UPLOADS, ... in bench/README.md)
 */
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  bench,
  built,
  cannon,
  cpuMs,
  mint,
  f1,
  f2,
  median,
  num,
  paced,
  report,
  rssMb,
  say,
  setting,
  sleep,
  startIpcChild,
  startServer,
  stopChild,
  type Load,
} from './lib/harness';

const CFG = {
  duration: num('BENCH_DURATION', 10),
  warmup: num('BENCH_WARMUP', 15),
  connections: num('BENCH_CONNECTIONS', 32),
  rounds: Math.max(1, num('BENCH_ROUNDS', 3)),
  rate: num('BENCH_RATE', 200),
  rateSeconds: num('BENCH_RATE_DURATION', 10),
  uploads: num('BENCH_UPLOADS', 1000),
  poolSize: num('DB_POOL_SIZE', 20),
};
const PHONE_ID = '100000000000001';
const BODY = JSON.stringify({
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to: '15550102030',
  type: 'text',
  text: { body: 'Your order has shipped.' },
});

async function uploads(port: number, apikey: string, count: number): Promise<void> {
  // A PNG signature and 1 MB of bytes after it, four uploads at a time.
  const file = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(1024 * 1024 - 8)]);
  const worker = async () => {
    for (let i = 0; i < count / 4; i++) {
      const form = new FormData();
      form.append('messaging_product', 'whatsapp');
      form.append('File', new Blob([file], { type: 'image/png' }), 'a.png');
      const res = await fetch(`http://127.0.0.1:${port}/api/Medias`, { method: 'POST', headers: { apikey, version: '6.0' }, body: form });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`upload answered ${res.status}`);
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
}

bench('gateway', 'gateway', async (run) => {
  const [, { port: networkPort }] = await startIpcChild<{ port: number }>('fake network', 'lib/sink.ts');
  const network = `http://127.0.0.1:${networkPort}`;
  const encryptionKeys = `bench:${randomBytes(32).toString('base64')}`;
  const connections = setting('gateway/apps/gateway/src/cloud/cloud.config.js', 'CloudConfig', 'CLOUD_API_CONNECTIONS');
  const env = { DATABASE_URL: run.dbUrl, DB_POOL_SIZE: String(CFG.poolSize), CLOUD_API_BASE_URL: network, CLOUD_API_CONNECTIONS: connections };
  const startGateway = () =>
    startServer('gateway', built('gateway'), {
      ...env,
      REDIS_PREFIX: run.redisPrefix,
      LOG_LEVEL: 'warn',
      ENCRYPTION_KEYS: encryptionKeys,
      GATEWAY_PROVIDER: 'cloud',
      // A load test of sends to contacts who never wrote: the service window is not what it measures.
      GATEWAY_SERVICE_WINDOW: 'off',
      MESSAGES_PER_SECOND: '100000',
      RATE_LIMIT_PER_MINUTE: '100000000',
      MEDIA_DIR: os.tmpdir(),
    });
  let gateway = await startGateway();
  const apikey = mint('gateway', ['apikey', '--phone', '15550100001', '--phone-id', PHONE_ID, '--name', 'bench', '--access-token', 'bench', '--waba-id', '1'], {
    DATABASE_URL: run.dbUrl,
    ENCRYPTION_KEYS: encryptionKeys,
  });
  const phone = (await run.pg.query(`SELECT id, account_id FROM gateway.phones WHERE phone_id = $1`, [PHONE_ID])).rows[0];
  const floor = await startServer('floor', path.join(__dirname, 'floors/bare-nest.ts'), {
    ...env,
    BENCH_FLOOR: 'gateway',
    BENCH_PHONE_REF: phone.id,
    BENCH_ACCOUNT_ID: phone.account_id,
    BENCH_PHONE_ID: PHONE_ID,
  });

  const targets = {
    gateway: { origin: `http://127.0.0.1:${gateway.port}`, path: '/api/Messages', headers: { apikey, version: '6.0' } },
    floor: { origin: `http://127.0.0.1:${floor.port}`, path: '/api/Messages', headers: {} },
    network: { origin: network, path: `/v23.0/${PHONE_ID}/messages`, headers: { authorization: 'Bearer bench' } },
  };
  const full = (name: keyof typeof targets, seconds: number) =>
    cannon(targets[name].origin, CFG.connections, seconds, targets[name].headers, [{ method: 'POST', path: targets[name].path, body: BODY }]);
  for (const name of ['gateway', 'floor', 'network'] as const) {
    say(`warm-up ${name} (${CFG.warmup} s)`);
    await full(name, CFG.warmup);
  }
  const speed: Record<'gateway' | 'floor', Load[]> = { gateway: [], floor: [] };
  // Each server's own CPU per send: unlike sends/s, it hardly moves with what else the machine runs.
  const cpuUs: Record<'gateway' | 'floor', number[]> = { gateway: [], floor: [] };
  const servers = { gateway, floor };
  const fixed: Record<'gateway' | 'floor' | 'network', Load[]> = { gateway: [], floor: [], network: [] };
  for (let round = 1; round <= CFG.rounds; round++) {
    for (const name of round % 2 ? (['gateway', 'floor'] as const) : (['floor', 'gateway'] as const)) {
      say(`round ${round}: ${name} at full speed`);
      const cpu = cpuMs(servers[name].process.pid);
      const load = await full(name, CFG.duration);
      speed[name].push(load);
      cpuUs[name].push(((cpuMs(servers[name].process.pid) - cpu) * 1000) / (load.rps * CFG.duration));
      say(`round ${round}: ${name} ${f1(load.rps)} sends/s, ${f1(cpuUs[name].at(-1)!)} µs CPU/send`);
    }
  }
  for (let round = 1; round <= CFG.rounds; round++) {
    for (const name of ['network', 'floor', 'gateway'] as const) {
      say(`round ${round}: ${name} at ${CFG.rate} requests/s`);
      const t = targets[name];
      fixed[name].push(await paced(t.origin + t.path, t.headers, BODY, CFG.rate, CFG.rateSeconds));
    }
  }
  if ([...speed.gateway, ...speed.floor, ...fixed.gateway, ...fixed.floor].some((l) => l.failed > 0)) throw new Error('some sends failed');

  // Memory on a fresh gateway, so garbage of the load phases does not move it.
  say(`${CFG.uploads} uploads of 1 MB on a restarted gateway`);
  await stopChild(gateway);
  gateway = await startGateway();
  await uploads(gateway.port, apikey, 40);
  const before = rssMb(gateway.process.pid)!;
  await uploads(gateway.port, apikey, CFG.uploads);
  await sleep(1000);
  const after = rssMb(gateway.process.pid)!;

  const ratio = f2(median(speed.gateway.map((g, i) => g.rps / speed.floor[i].rps)));
  const added = (name: 'gateway' | 'floor') => f2(median(fixed[name].map((l, i) => l.p50 - fixed.network[i].p50)));
  const rows = [
    [
      'throughput gateway ÷ floor (req/s, per-round median)',
      `${ratio} (${f1(median(speed.gateway.map((l) => l.rps)))} / ${f1(median(speed.floor.map((l) => l.rps)))})`,
    ],
    [`CPU per send, gateway / floor (µs, median)`, `${f1(median(cpuUs.gateway))} / ${f1(median(cpuUs.floor))}`],
    [`p50 added to the network's at ${CFG.rate} req/s, gateway (ms)`, added('gateway')],
    [`p50 added to the network's at ${CFG.rate} req/s, floor (ms)`, added('floor')],
    [`RSS after ${CFG.uploads} uploads of 1 MB (MB)`, `${f1(after - before)} (${f1(before)} → ${f1(after)})`],
  ];
  process.stdout.write(report(`Gateway, ${CFG.rounds} rounds, ${CFG.connections} connections`, ['measure', 'value'], rows));
});
