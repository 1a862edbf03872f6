import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { redactLogText } from '@voxwire/agents/provider-utils';
import { runConsole } from './console.js';
import { DEFAULT_PORT, runDev } from './dev.js';
import { CliError } from './errors.js';
import { resolveAgentFile } from './load.js';
import { type Output, terminal } from './output.js';
import { runRehearse } from './rehearse.js';
import { runStart } from './start.js';

function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/gu, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/u.test(bare);
}

const HELP: Record<string, string> = {
  main: `voxwire: run Voxwire voice agents

Usage: voxwire <command> [options]

Commands:
  dev <agent file>          talk to the agent in your browser (local playground, reloads on change)
  console <agent file>      talk to the agent in the terminal (text), or through WAV files
  rehearse <scenario.json>  replay a conversation scenario on virtual time and check it
  start <agent file>        run the agent as a LiveKit worker (LIVEKIT_URL, _API_KEY, _API_SECRET)

Options:
  -h, --help                help for voxwire or a command (voxwire help <command>)
  -v, --version             print the version

An agent file's default export is defineAgent({ prewarm?, entry(ctx) }) from @voxwire/agents.`,
  dev: `voxwire dev <agent file> [options]

Serves the local playground: open the printed URL, press Start talking and allow the microphone.
Every browser tab is its own conversation. Saving a file next to the agent file reloads the agent
(open pages reconnect by themselves).

Options:
  --port <n>     port to listen on (default ${DEFAULT_PORT}, or the next free one; 0 picks any)
  --host <addr>  address to listen on (default 127.0.0.1: this machine only)
  --no-watch     do not reload on changes (one process, no supervisor)
  -h, --help     this help`,
  console: `voxwire console <agent file> [options]

Text mode: type to the agent, read its answers (stdin may be piped: one line per turn).
Audio mode: --input plays a WAV file into the agent as its microphone, at real speed; --output writes
what the agent said (mono, 24 kHz) on the same timeline, cut where it was interrupted.

Options:
  --input <in.wav>    WAV file to use as the microphone (PCM or float, mixed down to mono)
  --output <out.wav>  where to write the agent's voice
  -h, --help          this help`,
  rehearse: `voxwire rehearse <scenario.json> [options]

Runs a scenario (user speech, scripted LLM turns, tools, faults) through the real session on virtual
time with @voxwire/testing, prints its timeline and the invariants it broke (exit code 1 if any).

Options:
  --seed <n>   seed for the scenario's random parts (default 0)
  --verbose    also show VAD inference, frames and metrics
  -h, --help   this help`,
  start: `voxwire start <agent file> [options]

Runs the agent as a LiveKit worker: it registers with a LiveKit server or LiveKit Cloud project and
runs the jobs it is dispatched, several sessions per process. Set LIVEKIT_URL, LIVEKIT_API_KEY and
LIVEKIT_API_SECRET. SIGTERM or Ctrl-C drains it (no new jobs, running ones finish); twice stops it.

Options:
  --agent-name <name>  register for explicit dispatch under this name (default: every new room)
  --dev                a local \`livekit-server --dev\` (ws://localhost:7880, devkey/secret) unless
                       the environment says otherwise; never reports itself full
  --processes <n>      run jobs in n pre-warmed child processes (each holding several), so a job
                       that hangs or crashes takes only its process down (default: in this one)
  --health-port <n>    serve GET / (health) and GET /worker (state, load, jobs, metrics) on port n
  -h, --help           this help`,
};

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: string[], out: Output = terminal): Promise<number> {
  try {
    return await dispatch(argv, out);
  } catch (error) {
    if (error instanceof CliError) {
      out.error(error.message);
      return error.exitCode;
    }
    // An unexpected error may quote a request or a key: print it as the core's logger would.
    out.error(redactLogText(error instanceof Error ? (error.stack ?? error.message) : String(error)));
    return 1;
  }
}

async function dispatch(argv: string[], out: Output): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help') {
    out.info(HELP.main!);
    return command === undefined ? 2 : 0;
  }
  if (command === '-v' || command === '--version') {
    out.info(version());
    return 0;
  }
  if (command === 'help') {
    const topic = rest[0] ?? 'main';
    out.info(HELP[topic] ?? HELP.main!);
    return HELP[topic] ? 0 : 2;
  }
  const help = HELP[command];
  if (!help || command === 'main') {
    throw new CliError(
      `Unknown command "${command}". Commands: dev, console, rehearse, start (voxwire --help).`,
      {
        exitCode: 2,
      },
    );
  }
  if (rest.includes('-h') || rest.includes('--help')) {
    out.info(help);
    return 0;
  }
  switch (command) {
    case 'dev': {
      const { values, positionals } = parse(command, rest, {
        port: { type: 'string' },
        host: { type: 'string' },
        'no-watch': { type: 'boolean' },
      });
      const host = (values.host as string | undefined) ?? '127.0.0.1';
      if (!isLoopbackAddress(host)) out.warn(exposedWarning(host));
      return runDev(
        {
          file: resolveAgentFile(positionals[0], command),
          host,
          port: values.port === undefined ? undefined : portOf(values.port as string),
          watch: values['no-watch'] !== true,
        },
        out,
      );
    }
    case 'console': {
      const { values, positionals } = parse(command, rest, {
        input: { type: 'string' },
        output: { type: 'string' },
      });
      return runConsole(
        {
          file: resolveAgentFile(positionals[0], command),
          input: values.input as string | undefined,
          output: values.output as string | undefined,
        },
        out,
      );
    }
    case 'rehearse': {
      const { values, positionals } = parse(command, rest, {
        seed: { type: 'string' },
        verbose: { type: 'boolean' },
      });
      const scenario = positionals[0];
      if (!scenario)
        throw new CliError('voxwire rehearse needs a scenario file: voxwire rehearse <scenario.json>');
      const seed = Number(values.seed ?? 0);
      if (!Number.isInteger(seed))
        throw new CliError(`--seed must be an integer, got ${String(values.seed)}`);
      return runRehearse({ scenario, seed, verbose: values.verbose === true }, out);
    }
    case 'start': {
      const { values, positionals } = parse(command, rest, {
        'agent-name': { type: 'string' },
        dev: { type: 'boolean' },
        processes: { type: 'string' },
        'health-port': { type: 'string' },
      });
      const processes = values.processes === undefined ? undefined : Number(values.processes);
      if (processes !== undefined && !(Number.isInteger(processes) && processes >= 1 && processes <= 64)) {
        throw new CliError(
          `--processes must be a whole number from 1 to 64, got ${String(values.processes)}`,
          {
            exitCode: 2,
          },
        );
      }
      return runStart(
        {
          file: resolveAgentFile(positionals[0], command),
          agentName: values['agent-name'] as string | undefined,
          dev: values.dev === true,
          processes,
          healthPort:
            values['health-port'] === undefined
              ? undefined
              : portOf(values['health-port'] as string, '--health-port'),
        },
        out,
      );
    }
  }
  return 2;
}

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

function parse(command: string, args: string[], options: OptionSpec) {
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
    if (parsed.positionals.length > 1) {
      throw new CliError(
        `voxwire ${command} takes one file, got: ${parsed.positionals.join(' ')} (voxwire ${command} --help)`,
        { exitCode: 2 },
      );
    }
    return parsed;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${(error as Error).message} (voxwire ${command} --help)`, { exitCode: 2 });
  }
}

/** Said loudly: everyone on the network can reach this agent, its tools and its API keys. */
function exposedWarning(host: string): string {
  return [
    '!'.repeat(72),
    `LISTENING ON ${host}: OTHER MACHINES CAN REACH THIS AGENT, ITS TOOLS AND YOUR API KEYS.`,
    'Only the secret in the printed URL (?token=…) keeps them out: share it with no one.',
    'The Host header may then be any IP literal of this machine as well as localhost, so the',
    'secret, not the Host check, is what stops other sites. Traffic is plain http, and browsers',
    'allow the microphone only on localhost or https.',
    '!'.repeat(72),
  ].join('\n');
}

function portOf(value: string, flag = '--port'): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CliError(`${flag} must be a number from 0 to 65535, got "${value}"`, { exitCode: 2 });
  }
  return port;
}

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    return `voxwire ${pkg.version}`;
  } catch {
    return 'voxwire';
  }
}
