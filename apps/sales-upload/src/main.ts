import { generateCommand } from './generate/generate.command';
import { GENERATE_USAGE } from './generate/generate-args';
import { uploadCommand } from './upload/upload.command';
import { UPLOAD_USAGE } from './upload/upload-args';
import { UploadInterruptedError } from './upload/upload-file';

const COMMANDS = new Map<string, (argv: string[]) => Promise<void>>([
  // The key may come from the environment (SALES_API_KEY): read here, where the tool meets it.
  ['upload', (argv) => uploadCommand(argv, process.stdout, process.env)],
  ['generate', generateCommand],
]);

/**
 * The sales upload tool: `main.js upload [options]` (npm run ingest:upload) and `main.js generate
 * [options]` (npm run ingest:generate). Resolves with the exit code: 0, 1 after a failure (one
 * sentence on stderr), 2 for a missing or unknown command, 130 after Ctrl-C (as a shell reports SIGINT).
 */
export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = COMMANDS.get(name);
  if (!command) {
    process.stderr.write(`Commands: upload, generate.\n${UPLOAD_USAGE}\n${GENERATE_USAGE}\n`);
    return name === 'help' || name === '--help' ? 0 : 2;
  }
  try {
    await command(rest);
    return 0;
  } catch (error) {
    // The upload's progress line may be unfinished: start the message on a line of its own.
    process.stderr.write(`${name === 'upload' ? '\n' : ''}${(error as Error).message}\n`);
    return error instanceof UploadInterruptedError ? 130 : 1;
  }
}

if (require.main === module) {
  void run(process.argv.slice(2)).then((code) => {
    if (code !== 0) process.exit(code);
  });
}
