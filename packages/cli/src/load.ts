import { existsSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AgentDefinition, agentDefinitionFromModule } from '@voxwire/agents';
import { CliError } from './errors.js';

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);
const LOADABLE = new Set([...TYPESCRIPT, '.js', '.mjs', '.cjs']);
const REGISTERED = Symbol.for('voxwire.cli.tsxRegistered');

/** Checks an agent file path and returns it absolute, or throws an error that says what to pass. */
export function resolveAgentFile(file: string | undefined, command: string): string {
  if (!file) throw new CliError(`voxwire ${command} needs an agent file: voxwire ${command} <agent file>`);
  const path = resolve(file);
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new CliError(
      `Agent file not found: ${file}. Pass the path of a .ts or .js file whose default export is defineAgent({ ... }).`,
    );
  }
  if (!LOADABLE.has(extname(path))) {
    throw new CliError(`Cannot load ${file}: agent files are .ts, .mts, .js or .mjs modules.`);
  }
  return path;
}

/**
 * Loads an agent file's definition. TypeScript files run through tsx, registered once per process
 * (unless the process was started with it already, as `pnpm dev` in the Voxwire repository does).
 */
export async function loadAgentFile(path: string): Promise<AgentDefinition> {
  if (TYPESCRIPT.has(extname(path))) await ensureTypeScript();
  let module: unknown;
  try {
    module = await import(pathToFileURL(path).href);
  } catch (error) {
    throw new CliError(`Could not load ${path}: ${describe(error)}`, { cause: error });
  }
  try {
    return agentDefinitionFromModule(module, path);
  } catch (error) {
    throw new CliError(describe(error), { cause: error });
  }
}

async function ensureTypeScript(): Promise<void> {
  const state = globalThis as Record<symbol, unknown>;
  if (state[REGISTERED]) return;
  state[REGISTERED] = true;
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  // vitest and a process started with tsx already load TypeScript.
  if (process.env.VITEST) return;
  if (/(^|[\s=/])tsx([\s/@]|$)|tsx\/(esm|dist)/u.test(flags)) return;
  const { register } = await import('tsx/esm/api');
  register();
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND') {
      return `${error.message}. Install the packages it imports (e.g. npm install @voxwire/agents).`;
    }
    return error.message;
  }
  return String(error);
}
