import { parseUploadArgs } from './upload-args';
import { uploadFile } from './upload-file';

/**
 * `upload --file F --url U --api-key K [...]` (npm run ingest:upload): the per-part summaries,
 * then the totals, as JSON lines on stdout; the progress on stderr. Ctrl-C cancels the part under
 * way on the service too (a second Ctrl-C leaves at once).
 */
export async function uploadCommand(argv: string[], out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const options = parseUploadArgs(argv);
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('\nCtrl-C: cancelling the part under way on the service…\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    const { parts, totals } = await uploadFile(options, { signal: controller.signal });
    for (const part of parts) out.write(`${JSON.stringify(part)}\n`);
    out.write(`${JSON.stringify({ total: totals, parts: parts.length })}\n`);
  } finally {
    process.off('SIGINT', onSigint);
  }
}
