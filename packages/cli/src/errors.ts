/** A mistake the user can fix: printed as is, without a stack trace. */
export class CliError extends Error {
  override name = 'CliError';
  readonly exitCode: number;

  constructor(message: string, options?: { cause?: unknown; exitCode?: number }) {
    super(message, options);
    this.exitCode = options?.exitCode ?? 1;
  }
}
