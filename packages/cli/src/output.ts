/** Where the CLI writes: the terminal by default, a buffer in tests. */
export interface Output {
  info(text: string): void;
  warn(text: string): void;
  error(text: string): void;
  /** Writes without a newline (the agent's transcript as it streams). */
  write(text: string): void;
}

export const terminal: Output = {
  info: (text) => process.stdout.write(`${text}\n`),
  warn: (text) => process.stderr.write(`warning: ${text}\n`),
  error: (text) => process.stderr.write(`error: ${text}\n`),
  write: (text) => process.stdout.write(text),
};
