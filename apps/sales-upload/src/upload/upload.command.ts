import { parseUploadArgs } from './upload-args';
import { uploadFile } from './upload-file';

/**
 * `upload --file F --url U --api-key K [...]` (npm run ingest:upload): the per-part summaries,
 * then the totals, as JSON lines on stdout; the progress on stderr.
 */
export async function uploadCommand(argv: string[], out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const { parts, totals } = await uploadFile(parseUploadArgs(argv));
  for (const part of parts) out.write(`${JSON.stringify(part)}\n`);
  out.write(`${JSON.stringify({ total: totals, parts: parts.length })}\n`);
}
