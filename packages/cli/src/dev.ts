import { type ChildProcess, fork } from 'node:child_process';
import { type FSWatcher, watch } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { basename, dirname, extname, relative } from 'node:path';
import { createLogger, type LogLevel, prewarmAgent } from '@voxwire/agents';
import { redactLogText } from '@voxwire/agents/provider-utils';
import { startPlayground } from '@voxwire/playground';
import { CliError } from './errors.js';
import { loadAgentFile } from './load.js';
import type { Output } from './output.js';

export interface DevOptions {
  file: string;
  host: string;
  /** Explicit port, or undefined to take the first free one from the default. */
  port: number | undefined;
  watch: boolean;
}

export const DEFAULT_PORT = 7866;
/** Hands the supervisor's secret to each server process: restarts keep it, so open pages stay in. */
const TOKEN_ENV = 'VOXWIRE_DEV_TOKEN';
const WATCHED = new Set(['.ts', '.mts', '.cts', '.tsx', '.js', '.mjs', '.cjs', '.json']);

/** Messages from the server process to its supervisor. */
type ChildMessage = { type: 'ready'; url: string } | { type: 'failed'; message: string };

/**
 * `voxwire dev`: the playground for one agent file. With watching on (the default), a supervisor runs
 * the server in a child process and restarts it when a file next to the agent changes: a fresh process
 * is the only way to reload every module the agent imports, and the pages reconnect by themselves.
 */
export async function runDev(options: DevOptions, out: Output): Promise<number> {
  if (process.env.VOXWIRE_DEV_CHILD === '1') return serveChild(options);
  if (!options.watch) return serveInProcess(options, out);
  return supervise(options, out);
}

async function serveInProcess(options: DevOptions, out: Output): Promise<number> {
  const port = options.port ?? (await freePort(options.host, DEFAULT_PORT));
  const server = await serve(options, port);
  out.info(`Voxwire playground for ${basename(options.file)}: ${server.url}`);
  out.info('Open it in a browser, press Start talking, and allow the microphone. Ctrl-C stops.');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close({ reason: 'the playground stopped' });
  return 0;
}

async function serve(options: DevOptions, port: number, token?: string) {
  const agent = await loadAgentFile(options.file);
  const prewarmed = await prewarmAgent(agent);
  try {
    return await startPlayground({
      agent,
      prewarmed,
      host: options.host,
      port,
      ...(token !== undefined ? { token } : {}),
      title: basename(options.file),
      logger: devLogger(),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError(
        `Port ${port} on ${options.host} is in use: pass --port with another one (0 picks any).`,
      );
    }
    throw error;
  }
}

/** The server side of a supervised run: reports readiness, and shuts down when told to. */
async function serveChild(options: DevOptions): Promise<number> {
  const report = (message: ChildMessage) => process.send?.(message);
  let server: Awaited<ReturnType<typeof serve>>;
  try {
    server = await serve(options, options.port ?? DEFAULT_PORT, process.env[TOKEN_ENV]);
  } catch (error) {
    report({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    return 1;
  }
  report({ type: 'ready', url: server.url });
  const reason = await new Promise<{ reason: string; reconnect: boolean }>((resolve) => {
    process.on('message', (message: { type?: string; reconnect?: boolean }) => {
      if (message?.type === 'shutdown') {
        resolve({
          reason: message.reconnect ? 'the agent file changed: reloading' : 'the playground stopped',
          reconnect: message.reconnect === true,
        });
      }
    });
    process.once('disconnect', () => resolve({ reason: 'the playground stopped', reconnect: false }));
    // Ctrl-C reaches the whole process group: the supervisor decides, the child waits for its word.
    process.on('SIGINT', () => {});
  });
  await server.close(reason);
  return 0;
}

async function supervise(options: DevOptions, out: Output): Promise<number> {
  // Restarts keep one port, so open pages find the agent again: "any port" is chosen once, here.
  const port =
    options.port === undefined
      ? await freePort(options.host, DEFAULT_PORT)
      : options.port === 0
        ? await ephemeralPort(options.host)
        : options.port;
  const script = process.argv[1];
  if (!script) throw new CliError('Cannot find the voxwire script to run the playground');
  const args = ['dev', options.file, '--host', options.host, '--port', String(port)];
  // In the environment, not the arguments: other users can list a process's arguments.
  const token = randomBytes(32).toString('base64url');
  let child: ChildProcess | undefined;
  let everReady = false;
  let stopping = false;

  const start = () => {
    const current = fork(script, args, {
      env: { ...process.env, VOXWIRE_DEV_CHILD: '1', [TOKEN_ENV]: token },
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child = current;
    current.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') {
        if (everReady) out.info(`Reloaded ${basename(options.file)}: open pages reconnect by themselves.`);
        else {
          out.info(`Voxwire playground for ${basename(options.file)}: ${message.url}`);
          out.info('Open it in a browser, press Start talking, and allow the microphone. Ctrl-C stops.');
          out.info(`Watching ${relative(process.cwd(), dirname(options.file)) || '.'} for changes.`);
        }
        everReady = true;
      } else if (message.type === 'failed') {
        out.error(
          `${redactLogText(message.message)}\nFix the agent file and save it: the playground reloads.`,
        );
      }
    });
    current.on('exit', (code, signal) => {
      if (child === current) child = undefined;
      if (!stopping && code !== 0 && signal === null && everReady) {
        out.error('The playground process stopped; save a file to start it again.');
      }
    });
  };

  const stop = (reconnect: boolean): Promise<void> => {
    const current = child;
    if (!current || current.exitCode !== null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => current.kill('SIGKILL'), 8000);
      current.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      if (current.connected) current.send({ type: 'shutdown', reconnect });
      else current.kill('SIGTERM');
    });
  };

  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let restarting: Promise<void> = Promise.resolve();
  try {
    watcher = watch(dirname(options.file), { recursive: true }, (_event, name) => {
      if (!name || !WATCHED.has(extname(name)) || /(^|[/\\])(node_modules|dist|\.git)([/\\]|$)/u.test(name))
        return;
      clearTimeout(debounce);
      // Editors save in bursts (write, rename, chmod): one reload per burst.
      debounce = setTimeout(() => {
        out.info(`${name} changed: reloading…`);
        restarting = restarting.then(async () => {
          await stop(true);
          if (!stopping) start();
        });
      }, 150);
    });
  } catch (error) {
    out.warn(`Cannot watch ${dirname(options.file)} (${String(error)}): changes will not reload.`);
  }

  start();
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  stopping = true;
  clearTimeout(debounce);
  watcher?.close();
  await restarting;
  await stop(false);
  return 0;
}

/**
 * The page already shows notices and errors: the terminal gets warnings and worse, unless
 * VOXWIRE_LOG_LEVEL asks for more.
 */
function devLogger() {
  const level = process.env.VOXWIRE_LOG_LEVEL?.toLowerCase();
  const known = ['debug', 'info', 'warn', 'error', 'silent'];
  return createLogger({
    name: 'voxwire',
    level: known.includes(level ?? '') ? (level as LogLevel | 'silent') : 'warn',
  });
}

/** The first port from `from` that can be bound on `host` (ten tries). */
async function freePort(host: string, from: number): Promise<number> {
  for (let port = from; port < from + 10; port++) {
    if (await canBind(host, port)) return port;
  }
  throw new CliError(
    `Ports ${from}-${from + 9} on ${host} are all in use: pass --port with a free one (0 picks any).`,
  );
}

function ephemeralPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function canBind(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}
