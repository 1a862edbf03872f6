import { APIConnectionError } from '@voxwire/agents';

/** The espeak-ng program could not be run. The message says how to install it. */
export class EspeakNotFoundError extends APIConnectionError {
  override name = 'EspeakNotFoundError';
  readonly binary: string;

  constructor(binary: string, cause?: unknown) {
    super(
      `espeak-ng could not be run (looked for \`${binary}\`). Install it: \`sudo apt-get install espeak-ng\` ` +
        '(Debian, Ubuntu), `brew install espeak-ng` (macOS), `sudo dnf install espeak-ng` (Fedora), ' +
        '`choco install espeak-ng` (Windows); or pass `binary` with its full path.',
      { retryable: false, cause },
    );
    this.binary = binary;
  }
}
