export { type ConsoleOptions, runConsole } from './console.js';
export { DEFAULT_PORT, type DevOptions, runDev } from './dev.js';
export { CliError } from './errors.js';
export { loadAgentFile, resolveAgentFile } from './load.js';
export { main } from './main.js';
export { type Output, terminal } from './output.js';
