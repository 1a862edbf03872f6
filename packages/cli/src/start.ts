import { createLogger, type Logger, type LogLevel } from '@voxwire/agents';
import { CliError } from './errors.js';
import { loadAgentFile } from './load.js';
import type { Output } from './output.js';

/** `livekit-server --dev` listens here with these credentials. */
export const DEV_SERVER = Object.freeze({
  url: 'ws://localhost:7880',
  apiKey: 'devkey',
  apiSecret: 'secret',
});

export interface StartOptions {
  file: string;
  /** Register for explicit dispatch under this name. */
  agentName?: string | undefined;
  /** A local `livekit-server --dev`: its URL and credentials unless the environment sets them, never full. */
  dev?: boolean;
  /** Run jobs in this many pre-warmed child processes instead of the worker's own. */
  processes?: number | undefined;
  /** Serve `/` and `/worker` on this port. */
  healthPort?: number | undefined;
  env?: Record<string, string | undefined>;
  logger?: Logger;
}

type Livekit = typeof import('@voxwire/livekit');

/**
 * `voxwire start`: the agent file as a LiveKit worker, until SIGTERM/SIGINT has drained it. The
 * LiveKit package (and its native WebRTC library) is loaded only for this command.
 */
export async function runStart(
  options: StartOptions,
  out: Output,
  load: () => Promise<Pick<Livekit, 'runWorker'>> = () => import('@voxwire/livekit'),
): Promise<number> {
  const env = options.env ?? process.env;
  const dev = options.dev === true;
  const url = env.LIVEKIT_URL ?? (dev ? DEV_SERVER.url : undefined);
  const apiKey = env.LIVEKIT_API_KEY ?? (dev ? DEV_SERVER.apiKey : undefined);
  const apiSecret = env.LIVEKIT_API_SECRET ?? (dev ? DEV_SERVER.apiSecret : undefined);
  const missing = [
    url ? undefined : 'LIVEKIT_URL',
    apiKey ? undefined : 'LIVEKIT_API_KEY',
    apiSecret ? undefined : 'LIVEKIT_API_SECRET',
  ].filter((name) => name !== undefined);
  if (missing.length > 0) {
    throw new CliError(
      `voxwire start needs ${missing.join(', ')} (your LiveKit server or LiveKit Cloud project), ` +
        'or --dev for a local `livekit-server --dev`.',
      { exitCode: 2 },
    );
  }
  const definition = await loadAgentFile(options.file);
  const { runWorker } = await load();
  out.info(
    `Starting the LiveKit worker for ${options.file} on ${url}` +
      (options.agentName ? ` as "${options.agentName}" (explicit dispatch)` : ' (every new room)') +
      '. Ctrl-C drains it.',
  );
  await runWorker({
    agent: definition,
    url: url!,
    apiKey: apiKey!,
    apiSecret: apiSecret!,
    ...(options.agentName ? { agentName: options.agentName } : {}),
    // Development: never report full, like LiveKit's own dev mode.
    ...(dev ? { loadThreshold: Number.POSITIVE_INFINITY } : {}),
    ...(options.healthPort !== undefined ? { healthPort: options.healthPort } : {}),
    ...(options.processes
      ? {
          jobProcesses: {
            agentFile: options.file,
            processes: options.processes,
            execArgv: jobProcessFlags(options.file),
          },
        }
      : {}),
    logger: options.logger ?? workerLogger(env),
  });
  out.info('The worker has stopped.');
  return 0;
}

/** A TypeScript agent file needs tsx in the job processes too (the CLI registers it in its own). */
function jobProcessFlags(file: string): string[] {
  const flags = [...process.execArgv];
  const typescript = /\.(c|m)?tsx?$/u.test(file);
  // The same test as the CLI's own loader: a flag that loads tsx, not a path that happens to name it.
  const hasTsx = /(^|[\s=/])tsx([\s/@]|$)|tsx\/(esm|dist)/u.test(flags.join(' '));
  if (typescript && !hasTsx) flags.push('--import', import.meta.resolve('tsx'));
  return flags;
}

function workerLogger(env: Record<string, string | undefined>): Logger {
  const level = env.VOXWIRE_LOG_LEVEL?.toLowerCase();
  const known = ['debug', 'info', 'warn', 'error', 'silent'];
  return createLogger({
    name: 'voxwire',
    level: known.includes(level ?? '') ? (level as LogLevel | 'silent') : 'info',
  });
}
