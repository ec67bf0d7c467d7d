import http from 'node:http';
import https from 'node:https';
import { partBytes, partSize, planParts } from './part-plan';
import { ProgressBar } from './progress-bar';
import type { UploadOptions } from './upload-args';
import { uploadIdentity, UploadState } from './upload-state';

/** What the tool reports of each part: the service's summary of its ingestion, or that it was skipped. */
export interface PartResult {
  part: number;
  of: number;
  skipped?: 'already confirmed';
  ingestion_id: string;
  received: number;
  inserted: number;
  updated: number;
  rejected: number;
  error_count: number;
  duration_ms: number;
}

export interface UploadTotals {
  received: number;
  inserted: number;
  updated: number;
  rejected: number;
}

type IngestionSummary = Omit<PartResult, 'part' | 'of' | 'skipped'> & { status: string };

interface Answer {
  status: number;
  body: string;
}

/**
 * Sends the file part after part (see `planParts`). A part that fails on the network, with 408,
 * 429 or 5xx is sent again, up to `retries` times, waiting 1, 2, 4… s; any other answer stops the
 * upload. Each confirmed part is recorded in the state file, so a rerun asks the service about the
 * parts it confirmed (GET .../ingestions/{id}) and sends only the rest.
 */
export async function uploadFile(options: UploadOptions): Promise<{ parts: PartResult[]; totals: UploadTotals }> {
  const { file, url, apiKey, format, maxPartBytes, retries } = options;
  const state = new UploadState(options.state, uploadIdentity(options));
  const plan = await planParts(file, format, maxPartBytes);
  plan.parts = state.savedParts() ?? plan.parts;
  state.save(plan.parts);
  const total = plan.parts.reduce((sum, _part, i) => sum + partSize(plan, i), 0);
  const progress = new ProgressBar(total, format);
  const results: PartResult[] = [];
  const of = plan.parts.length;
  for (let i = 0; i < of; i++) {
    const part = plan.parts[i];
    const size = partSize(plan, i);
    if (part.ingestion_id) {
      const got = await send(new URL(`${url}/ingestions/${part.ingestion_id}`), 'GET', { apiKey }, null);
      const summary = got.status === 200 ? (JSON.parse(got.body) as IngestionSummary) : null;
      if (summary?.status === 'completed') {
        progress.bytes += size;
        results.push({ part: i + 1, of, skipped: 'already confirmed', ...pick(summary) });
        continue;
      }
    }
    const headers = { apiKey, 'Content-Type': format === 'csv' ? 'application/csv' : 'application/json', 'Content-Length': String(size) };
    let summary: IngestionSummary | undefined;
    for (let attempt = 0; summary === undefined; attempt++) {
      const before = progress.bytes;
      let res: Answer | undefined;
      try {
        res = await send(url, 'POST', headers, partBytes(file, plan, i), (chunk) => progress.add(chunk));
      } catch (error) {
        if (attempt >= retries) throw error;
        process.stderr.write(`\npart ${i + 1}: ${(error as Error).message}, retrying\n`);
      }
      if (res?.status === 201) {
        summary = JSON.parse(res.body) as IngestionSummary;
        break;
      }
      if (res) {
        const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
        if (!retryable || attempt >= retries) throw new Error(`Part ${i + 1} of ${of} was refused with ${res.status}: ${res.body.slice(0, 500)}`);
        process.stderr.write(`\npart ${i + 1}: ${res.status}, retrying\n`);
      }
      progress.bytes = before;
      await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** attempt));
    }
    part.ingestion_id = summary.ingestion_id;
    state.save(plan.parts);
    results.push({ part: i + 1, of, ...pick(summary) });
  }
  progress.done();
  const totals: UploadTotals = { received: 0, inserted: 0, updated: 0, rejected: 0 };
  for (const result of results) for (const key of Object.keys(totals) as Array<keyof UploadTotals>) totals[key] += Number(result[key] || 0);
  return { parts: results, totals };
}

function pick(summary: IngestionSummary): Omit<PartResult, 'part' | 'of' | 'skipped'> {
  const { ingestion_id, received, inserted, updated, rejected, error_count, duration_ms } = summary;
  return { ingestion_id, received, inserted, updated, rejected, error_count, duration_ms };
}

function send(url: URL, method: string, headers: Record<string, string>, body: AsyncIterable<Buffer> | null, onChunk?: (chunk: Buffer) => void): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode || 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (!body) {
      req.end();
      return;
    }
    (async () => {
      for await (const chunk of body) {
        onChunk?.(chunk);
        if (!req.write(chunk)) await new Promise((resolve) => req.once('drain', resolve));
      }
      req.end();
    })().catch((error: Error) => req.destroy(error));
  });
}
