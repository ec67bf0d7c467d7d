import { createWriteStream, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parseGenerateArgs } from './generate-args';
import { salesFile } from './sales-file';

/**
 * `generate --format csv|json (--rows N | --size 1GB) [...]` (npm run ingest:generate): Sale files
 * for tests, benchmarks and trying the ingestion out, valid or with bad rows, any size. Rows are
 * deterministic for a seed; `--invalid-every K` makes every K-th row bad in one field (sales-file's
 * INVALID), so its line and field are known. Writes to stdout without `--out`.
 */
export async function generateCommand(argv: string[], stdout: NodeJS.WritableStream = process.stdout): Promise<void> {
  const { file, out } = parseGenerateArgs(argv);
  const made = { rows: 0 };
  await pipeline(salesFile({ ...file, made }), out ? createWriteStream(out) : stdout);
  if (out) process.stderr.write(`${made.rows} rows, ${statSync(out).size} bytes in ${out}\n`);
}
