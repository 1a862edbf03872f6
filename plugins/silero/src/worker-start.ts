import { VoxwireError } from '@voxwire/agents';

/**
 * The inference worker thread could not be started (not a problem of the model file): for example Node
 * refused the flags it was started with. `load()` rejects with this one unwrapped, so the message does not
 * blame the model.
 */
export class SileroWorkerStartError extends VoxwireError {
  override name = 'SileroWorkerStartError';
}

/**
 * The process's Node flags for a worker, minus `--input-type`: it describes the parent's `-e` code, and
 * a worker started from a file refuses to load under it (`node --input-type=module -e "..."` could not
 * load the VAD).
 */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] as string;
    if (arg === '--input-type') {
      i++;
      continue;
    }
    if (!arg.startsWith('--input-type=')) out.push(arg);
  }
  return out;
}

const INVALID_EXEC_ARGV = 'ERR_WORKER_INVALID_EXEC_ARGV';

/**
 * Creates a worker with the parent's flags, leaving out those Node refuses in a worker. V8 flags
 * (`--max-old-space-size`, `--expose-gc`) and process-wide ones (`--title`) are refused with
 * ERR_WORKER_INVALID_EXEC_ARGV, and Node has no public list of which flags a worker takes: the refused
 * ones are read from the error and the worker is started once more without them. Flags that matter to
 * the worker's code (`--conditions`, `--import`) are kept.
 */
export function startWorker<W>(create: (execArgv: string[]) => W, execArgv: readonly string[]): W {
  let args = workerExecArgv(execArgv);
  // Each retry removes at least one flag, so this ends.
  for (;;) {
    try {
      return create(args);
    } catch (error) {
      const refused =
        error instanceof Error && codeOf(error) === INVALID_EXEC_ARGV ? refusedFlags(error, args) : [];
      if (refused.length === 0) {
        throw new SileroWorkerStartError(
          `the Silero inference worker thread could not be started: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      args = args.filter((arg) => !refused.includes(arg));
    }
  }
}

function codeOf(error: Error): unknown {
  return (error as Error & { code?: unknown }).code;
}

/**
 * The flags of `args` that Node's message names ("Initiated Worker with invalid execArgv flags: a, b").
 * When it names none of them (a wording this code does not know), all flags are dropped: a worker
 * started from the built file runs without any.
 */
function refusedFlags(error: Error, args: readonly string[]): string[] {
  const colon = error.message.indexOf(':');
  const named =
    colon < 0
      ? []
      : error.message
          .slice(colon + 1)
          .split(',')
          .map((s) => s.trim());
  const refused = args.filter((arg) => named.includes(arg));
  return refused.length > 0 ? refused : [...args];
}
