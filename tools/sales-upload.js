// @ts-check
'use strict';
// Uploads a Sale file (CSV or JSON) to the sales ingestion, streamed, in parts of at most 1 GB:
//
//   npm run -s ingest:upload -- --file sales.csv --url http://localhost:3003 --api-key <key>
//        [--part-bytes N] [--retries 3] [--state FILE] [--format csv|json]
//
// A file over the part size is cut on record boundaries (a CSV part repeats the header line, a JSON part
// is a valid array). Parts go one after another with a progress bar on stderr (bytes, rows/s, ETA; rows are
// counted from line ends in CSV and from "OrderId" keys in JSON, an estimate). A part that fails on the
// network, with 408, 429 or 5xx is sent again (up to --retries times, waiting 1, 2, 4… s); other answers
// stop the upload. Each confirmed part is recorded in a state file (default <file>.upload-state.json), so a
// rerun skips parts the service already confirmed (it asks GET .../ingestions/{id}) and sends the rest.
// Per-part and total summaries go to stdout as JSON lines.

const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const path = require('node:path');

const PATH = '/DataInserterSales/api/sales';
const GB = 1024 ** 3;

/**
 * @typedef {object} Plan
 * @property {'csv' | 'json'} format
 * @property {Array<{ start: number, end: number, ingestion_id?: string }>} parts byte ranges of the file
 * @property {Buffer} header the CSV header line (repeated in every CSV part after the first)
 * @property {boolean} split the file is sent in more than one part
 */

/**
 * Where the parts start and end (byte offsets in the file), cut on record boundaries, each at most
 * `maxBytes` once its header (CSV) or brackets (JSON) are added.
 * @param {string} file
 * @param {'csv' | 'json'} format
 * @param {number} maxBytes
 * @returns {Promise<Plan>}
 */
async function planParts(file, format, maxBytes) {
  const size = fs.statSync(file).size;
  const header = format === 'csv' ? await firstLine(file) : Buffer.alloc(0);
  if (size <= maxBytes) return { format, parts: [{ start: 0, end: size }], header, split: false };
  const budget = maxBytes - (format === 'csv' ? header.length : 2);
  /** @type {Array<{ start: number, end: number }>} */
  const parts = [];
  let partStart = format === 'csv' ? 0 : -1;
  let lastEnd = -1; // end of the last complete record in the current part
  const boundaries = format === 'csv' ? csvBoundaries() : jsonBoundaries();
  let offset = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    for (const [start, end] of boundaries(/** @type {Buffer} */ (chunk), offset)) {
      if (partStart < 0) partStart = start;
      if (end - partStart > budget) {
        if (lastEnd < 0) throw new Error(`A record at byte ${start} does not fit in a part of ${maxBytes} bytes.`);
        parts.push({ start: partStart, end: lastEnd });
        partStart = start;
      }
      lastEnd = end;
    }
    offset += chunk.length;
  }
  if (lastEnd > partStart) parts.push({ start: partStart, end: format === 'csv' ? size : lastEnd });
  return { format, parts, header, split: true };
}

/** @param {string} file */
async function firstLine(file) {
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 64 * 1024, end: 1024 * 1024 })) {
    const eol = /** @type {Buffer} */ (chunk).indexOf(0x0a);
    if (eol >= 0) return Buffer.from(chunk.subarray(0, eol + 1));
  }
  throw new Error('The CSV file has no complete header line.');
}

/**
 * CSV records: a record ends at a newline outside quotes ("" inside quotes toggles twice, so it nets out).
 * The header line is not a record.
 * @returns {(chunk: Buffer, offset: number) => Array<[number, number]>}
 */
function csvBoundaries() {
  let inQuotes = false;
  let recordStart = -1; // -1: still in the header
  return (chunk, offset) => {
    /** @type {Array<[number, number]>} */
    const out = [];
    let i = 0;
    while (i < chunk.length) {
      const nl = chunk.indexOf(0x0a, i);
      const quote = chunk.indexOf(0x22, i);
      if (quote !== -1 && (nl === -1 || quote < nl)) {
        inQuotes = !inQuotes;
        i = quote + 1;
        continue;
      }
      if (nl === -1) break;
      if (!inQuotes) {
        if (recordStart >= 0) out.push([recordStart, offset + nl + 1]);
        recordStart = offset + nl + 1;
      }
      i = nl + 1;
    }
    return out;
  };
}

/**
 * JSON: the top-level elements of the array, from their first byte to just after their last.
 * @returns {(chunk: Buffer, offset: number) => Array<[number, number]>}
 */
function jsonBoundaries() {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  return (chunk, offset) => {
    /** @type {Array<[number, number]>} */
    const out = [];
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x22) inString = false;
        continue;
      }
      if (b === 0x22) inString = true;
      else if (b === 0x7b || b === 0x5b) {
        if (depth === 1 && b === 0x7b) start = offset + i;
        depth++;
      } else if (b === 0x7d || b === 0x5d) {
        depth--;
        if (depth === 1 && b === 0x7d) out.push([start, offset + i + 1]);
      }
    }
    return out;
  };
}

/**
 * The bytes of one part, streamed: the header (CSV parts after the first) or the brackets (JSON parts of
 * a split file), and the file's slice.
 * @param {string} file @param {Plan} plan @param {number} index
 */
async function* partBytes(file, plan, index) {
  const part = plan.parts[index];
  if (plan.format === 'csv' && index > 0) yield plan.header;
  if (plan.format === 'json' && plan.split) yield Buffer.from('[');
  if (part.end > part.start) yield* fs.createReadStream(file, { start: part.start, end: part.end - 1, highWaterMark: 256 * 1024 });
  if (plan.format === 'json' && plan.split) yield Buffer.from(']');
}

/** The size of a part as sent. @param {Plan} plan @param {number} index */
function partSize(plan, index) {
  const part = plan.parts[index];
  let size = part.end - part.start;
  if (plan.format === 'csv' && index > 0) size += plan.header.length;
  if (plan.format === 'json' && plan.split) size += 2;
  return size;
}

/**
 * @param {URL} url @param {string} method @param {Record<string, string>} headers
 * @param {AsyncIterable<Buffer> | null} body @param {(n: Buffer) => void} [onChunk]
 * @returns {Promise<{ status: number, body: string }>}
 */
function send(url, method, headers, body, onChunk) {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, { method, headers }, (res) => {
      const chunks = /** @type {Buffer[]} */ ([]);
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode || 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (!body) return req.end();
    (async () => {
      for await (const chunk of body) {
        onChunk?.(chunk);
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
      }
      req.end();
    })().catch((error) => req.destroy(error));
  });
}

class Progress {
  /** @param {number} total @param {'csv' | 'json'} format */
  constructor(total, format) {
    this.total = total;
    this.format = format;
    this.bytes = 0;
    this.rows = 0;
    this.started = Date.now();
    this.shown = 0;
    this.needle = format === 'csv' ? Buffer.from('\n') : Buffer.from('"OrderId"');
  }

  /** @param {Buffer} chunk */
  add(chunk) {
    this.bytes += chunk.length;
    for (let at = chunk.indexOf(this.needle); at !== -1; at = chunk.indexOf(this.needle, at + 1)) this.rows++;
    const now = Date.now();
    if (now - this.shown >= (process.stderr.isTTY ? 200 : 5000)) this.show(now);
  }

  /** @param {number} now */
  show(now = Date.now()) {
    this.shown = now;
    const seconds = Math.max(0.001, (now - this.started) / 1000);
    const share = this.total > 0 ? Math.min(1, this.bytes / this.total) : 1;
    const width = 30;
    const bar = '#'.repeat(Math.round(share * width)).padEnd(width, '.');
    const rate = this.bytes / seconds;
    const eta = rate > 0 ? Math.round((this.total - this.bytes) / rate) : 0;
    const line = `[${bar}] ${(share * 100).toFixed(1)}% ${mb(this.bytes)}/${mb(this.total)} MB, ${Math.round(this.rows / seconds)} rows/s, ${mb(rate)} MB/s, ETA ${eta}s`;
    process.stderr.write(process.stderr.isTTY ? `\r${line}` : `${line}\n`);
  }

  done() {
    this.show();
    if (process.stderr.isTTY) process.stderr.write('\n');
  }
}

/** @param {number} bytes */
function mb(bytes) {
  return (bytes / 1024 / 1024).toFixed(1);
}

/** @param {string[]} argv */
function parseArgs(argv) {
  /** @type {Record<string, string>} */
  const args = {};
  for (let i = 0; i < argv.length; i++) {
    if (!argv[i].startsWith('--')) throw new Error(`Unexpected argument ${argv[i]}`);
    args[argv[i].slice(2)] = argv[i + 1];
    i++;
  }
  const file = args.file;
  const base = args.url;
  const apiKey = args['api-key'];
  if (!file || !base || !apiKey) throw new Error('Usage: npm run -s ingest:upload -- --file sales.csv --url http://localhost:3003 --api-key <key> [--part-bytes N] [--retries 3] [--state FILE]');
  const ext = path.extname(file).toLowerCase();
  const format = args.format || (ext === '.json' ? 'json' : 'csv');
  if (format !== 'csv' && format !== 'json') throw new Error('--format is csv or json');
  return {
    file,
    url: new URL(base.replace(/\/+$/, '').replace(new RegExp(`${PATH}$`), '') + PATH),
    apiKey,
    format: /** @type {'csv' | 'json'} */ (format),
    maxPartBytes: Number(args['part-bytes'] || GB),
    retries: Number(args.retries ?? 3),
    state: args.state || `${file}.upload-state.json`,
  };
}

/**
 * @param {ReturnType<typeof parseArgs>} options
 * @returns {Promise<{ parts: Array<Record<string, unknown>>, totals: Record<string, number> }>}
 */
async function uploadFile(options) {
  const { file, url, apiKey, format, maxPartBytes, retries } = options;
  const stat = fs.statSync(file);
  const identity = { file: path.resolve(file), size: stat.size, mtimeMs: stat.mtimeMs, url: url.toString(), maxPartBytes };
  // A rerun of the same file to the same service resumes: the plan (and what was confirmed) is reused.
  /** @type {{ identity: typeof identity, parts: Plan['parts'] } | null} */
  let state = null;
  if (fs.existsSync(options.state)) {
    const saved = JSON.parse(fs.readFileSync(options.state, 'utf8'));
    if (JSON.stringify(saved.identity) === JSON.stringify(identity)) state = saved;
  }
  const plan = await planParts(file, format, maxPartBytes);
  if (state) plan.parts = state.parts;
  const save = () => fs.writeFileSync(options.state, JSON.stringify({ identity, parts: plan.parts }, null, 2));
  save();
  const total = plan.parts.reduce((sum, _p, i) => sum + partSize(plan, i), 0);
  const progress = new Progress(total, format);
  /** @type {Array<Record<string, unknown>>} */
  const results = [];
  const of = plan.parts.length;
  for (let i = 0; i < of; i++) {
    const part = plan.parts[i];
    const size = partSize(plan, i);
    if (part.ingestion_id) {
      const got = await send(new URL(`${url}/ingestions/${part.ingestion_id}`), 'GET', { apiKey }, null);
      const summary = got.status === 200 ? JSON.parse(got.body) : null;
      if (summary?.status === 'completed') {
        progress.bytes += size;
        results.push({ part: i + 1, of, skipped: 'already confirmed', ...pick(summary) });
        continue;
      }
    }
    const headers = { apiKey, 'Content-Type': format === 'csv' ? 'application/csv' : 'application/json', 'Content-Length': String(size) };
    let summary = null;
    for (let attempt = 0; ; attempt++) {
      const before = progress.bytes;
      let res;
      try {
        res = await send(url, 'POST', headers, partBytes(file, plan, i), (chunk) => progress.add(chunk));
      } catch (error) {
        if (attempt >= retries) throw error;
        process.stderr.write(`\npart ${i + 1}: ${/** @type {Error} */ (error).message}, retrying\n`);
      }
      if (res?.status === 201) {
        summary = JSON.parse(res.body);
        break;
      }
      if (res) {
        const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
        if (!retryable || attempt >= retries) throw new Error(`Part ${i + 1} of ${of} was refused with ${res.status}: ${res.body.slice(0, 500)}`);
        process.stderr.write(`\npart ${i + 1}: ${res.status}, retrying\n`);
      }
      progress.bytes = before;
      await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt));
    }
    part.ingestion_id = summary.ingestion_id;
    save();
    results.push({ part: i + 1, of, ...pick(summary) });
  }
  progress.done();
  const totals = { received: 0, inserted: 0, updated: 0, rejected: 0 };
  for (const r of results) for (const k of Object.keys(totals)) totals[/** @type {keyof typeof totals} */ (k)] += Number(r[k] || 0);
  return { parts: results, totals };
}

/** @param {Record<string, unknown>} summary */
function pick(summary) {
  const { ingestion_id, received, inserted, updated, rejected, error_count, duration_ms } = summary;
  return { ingestion_id, received, inserted, updated, rejected, error_count, duration_ms };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const { parts, totals } = await uploadFile(options);
  for (const p of parts) process.stdout.write(`${JSON.stringify(p)}\n`);
  process.stdout.write(`${JSON.stringify({ total: totals, parts: parts.length })}\n`);
}

module.exports = { planParts, uploadFile, parseArgs };

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`\n${err.message}\n`);
    process.exit(1);
  });
}
