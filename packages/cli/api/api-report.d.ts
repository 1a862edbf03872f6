import { AgentDefinition } from '@voxwire/agents';

/** Where the CLI writes: the terminal by default, a buffer in tests. */
interface Output {
    info(text: string): void;
    warn(text: string): void;
    error(text: string): void;
    /** Writes without a newline (the agent's transcript as it streams). */
    write(text: string): void;
}
declare const terminal: Output;

interface ConsoleOptions {
    file: string;
    /** A WAV file played into the agent as the user's microphone, at real speed. */
    input?: string | undefined;
    /** Where to write the agent's voice (mono, 24 kHz) on the conversation's timeline. */
    output?: string | undefined;
    /** Longest wait for the agent to answer one line or to finish after the input file. Default 60000 ms. */
    maxWaitMs?: number;
}
/**
 * `voxwire console`: the agent in the terminal. Typed lines become user turns and replies are printed
 * (text mode); with `--input`, a WAV file is the microphone and `--output` records the agent's voice.
 */
declare function runConsole(options: ConsoleOptions, out: Output, stdin?: NodeJS.ReadableStream): Promise<number>;

interface DevOptions {
    file: string;
    host: string;
    /** Explicit port, or undefined to take the first free one from the default. */
    port: number | undefined;
    watch: boolean;
}
declare const DEFAULT_PORT = 7866;
/**
 * `voxwire dev`: the playground for one agent file. With watching on (the default), a supervisor runs
 * the server in a child process and restarts it when a file next to the agent changes: a fresh process
 * is the only way to reload every module the agent imports, and the pages reconnect by themselves.
 */
declare function runDev(options: DevOptions, out: Output): Promise<number>;

/** A mistake the user can fix: printed as is, without a stack trace. */
declare class CliError extends Error {
    name: string;
    readonly exitCode: number;
    constructor(message: string, options?: {
        cause?: unknown;
        exitCode?: number;
    });
}

/** Checks an agent file path and returns it absolute, or throws an error that says what to pass. */
declare function resolveAgentFile(file: string | undefined, command: string): string;
/**
 * Loads an agent file's definition. TypeScript files run through tsx, registered once per process
 * (unless the process was started with it already, as `pnpm dev` in the Voxwire repository does).
 */
declare function loadAgentFile(path: string): Promise<AgentDefinition>;

/** Runs the CLI; resolves with the exit code. */
declare function main(argv: string[], out?: Output): Promise<number>;

export { CliError, type ConsoleOptions, DEFAULT_PORT, type DevOptions, type Output, loadAgentFile, main, resolveAgentFile, runConsole, runDev, terminal };
