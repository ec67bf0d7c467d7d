import { parseUploadCommand, UPLOAD_USAGE } from './upload-args';
import { uploadFile } from './upload-file';

/**
 * `upload --file F --url U --key-file K [...]` (npm run ingest:upload): each part's summary as it
 * finishes, then the totals, as JSON lines on stdout; the progress on stderr. Ctrl-C cancels the part
 * under way on the service too (a second Ctrl-C leaves at once). `--help` prints the usage.
 */
export async function uploadCommand(argv: string[], out: NodeJS.WritableStream = process.stdout, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const options = parseUploadCommand(argv, env);
  if ('help' in options) {
    out.write(`${UPLOAD_USAGE}\n`);
    return;
  }
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('\nCtrl-C: cancelling the part under way on the service…\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    const { parts, totals } = await uploadFile(options, { signal: controller.signal, onPart: (part) => out.write(`${JSON.stringify(part)}\n`) });
    out.write(`${JSON.stringify({ total: totals, parts: parts.length })}\n`);
  } finally {
    process.off('SIGINT', onSigint);
  }
}
