'use strict';
// Diagnostic only: preloaded into the docstore child of bench/webhooks.ts
// (`node -r bench/lib/webhook-probe.js main.js`, with BENCH_WEBHOOK_PROBE=1) to see where a
// delivery's time goes. It wraps, without changing what they do:
//   WebhooksRepository.relay          runs, rows moved, time per run (transaction + addBulk),
//                                     and for each row how long it waited in the outbox
//                                     (relay time − the event's occurred_at)
//   WebhookDeliveryProcessor.process  attempts, deferrals (DelayedError: the webhook already had
//                                     WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK in flight), time from the
//                                     job's creation to the attempt that sent it, whole attempt time
//   WebhooksRepository.recordAttempts rows written vs. rows the UPDATE did not match, and
//                                     whether those rows' relay transaction was still open
//                                     (not yet committed) when the UPDATE was sent
// The parent asks over IPC: {probe:'reset'} and {probe:'snapshot'} → {probe:'snapshot', stats}.

const path = require('node:path');

const DIST = path.resolve(__dirname, '../../dist/docstore/libs/webhooks/src');
const { WebhooksRepository } = require(path.join(DIST, 'webhooks.repository.js'));
const { WebhookDeliveryProcessor } = require(path.join(DIST, 'webhook-delivery.processor.js'));
const { DelayedError } = require(require.resolve('bullmq', { paths: [DIST] }));

const now = () => performance.timeOrigin + performance.now();

let s;
function reset() {
  s = {
    relayRuns: 0,
    relayEmptyRuns: 0,
    relayRows: 0,
    relayMs: [],
    outboxWaitMs: [],
    attempts: 0,
    deferrals: 0,
    queueWaitMs: [],
    attemptMs: [],
    recordCalls: 0,
    recordRows: 0,
    recordMissed: 0,
    recordMissedWhileRelayOpen: 0,
    recordSentWhileRelayOpen: 0,
    missedIds: [],
  };
}
reset();

/** Rows handed to the queue by a relay transaction that has not resolved (committed) yet. */
const uncommitted = new Set();

const relay = WebhooksRepository.prototype.relay;
WebhooksRepository.prototype.relay = function probedRelay(perWebhook, batch, enqueue) {
  const started = now();
  const mine = [];
  const wrapped = (rows) => {
    const t = now();
    for (const row of rows) {
      mine.push(row.id);
      uncommitted.add(row.id);
      s.outboxWaitMs.push(t - Date.parse(row.occurred_at));
    }
    return enqueue(rows);
  };
  return relay.call(this, perWebhook, batch, wrapped).then(
    (moved) => {
      for (const id of mine) uncommitted.delete(id);
      s.relayRuns++;
      if (moved === 0) s.relayEmptyRuns++;
      s.relayRows += moved;
      s.relayMs.push(now() - started);
      return moved;
    },
    (error) => {
      for (const id of mine) uncommitted.delete(id);
      throw error;
    },
  );
};

const recordAttempts = WebhooksRepository.prototype.recordAttempts;
WebhooksRepository.prototype.recordAttempts = async function probedRecordAttempts(records, db) {
  const open = new Set(records.filter((r) => uncommitted.has(r.id)).map((r) => r.id));
  const written = await recordAttempts.call(this, records, db);
  s.recordCalls++;
  s.recordRows += records.length;
  s.recordSentWhileRelayOpen += open.size;
  for (const r of records) {
    if (written.has(r.id)) continue;
    s.recordMissed++;
    if (open.has(r.id)) s.recordMissedWhileRelayOpen++;
    if (s.missedIds.length < 200) s.missedIds.push(r.id);
  }
  return written;
};

const process_ = WebhookDeliveryProcessor.prototype.process;
WebhookDeliveryProcessor.prototype.process = async function probedProcess(job, token) {
  const started = now();
  s.attempts++;
  try {
    const result = await process_.call(this, job, token);
    s.queueWaitMs.push(started - job.timestamp);
    s.attemptMs.push(now() - started);
    return result;
  } catch (error) {
    if (error instanceof DelayedError) s.deferrals++;
    throw error;
  }
};

function summary(xs) {
  if (xs.length === 0) return null;
  const a = Float64Array.from(xs).sort();
  const at = (p) => a[Math.min(a.length - 1, Math.max(0, Math.ceil((p / 100) * a.length) - 1))];
  return { n: a.length, mean: a.reduce((x, y) => x + y, 0) / a.length, p50: at(50), p90: at(90), p99: at(99), max: a[a.length - 1] };
}

process.on('message', (msg) => {
  if (!msg || typeof msg.probe !== 'string') return;
  if (msg.probe === 'reset') {
    reset();
    process.send({ probe: 'reset-done' });
  } else if (msg.probe === 'snapshot') {
    const { relayMs, outboxWaitMs, queueWaitMs, attemptMs, ...counts } = s;
    process.send({
      probe: 'snapshot',
      stats: { ...counts, relayMs: summary(relayMs), outboxWaitMs: summary(outboxWaitMs), queueWaitMs: summary(queueWaitMs), attemptMs: summary(attemptMs) },
    });
  }
});
