import { VoxwireError } from '@voxwire/agents';

export type TurnModelErrorCode = 'not_found' | 'invalid' | 'load_failed';

/**
 * The end-of-turn model could not be loaded: its description or ONNX file is missing (`not_found`),
 * the description is not one this package can use (`invalid`), or onnxruntime rejected the file
 * (`load_failed`). The message names the file.
 */
export class TurnModelError extends VoxwireError {
  override name = 'TurnModelError';
  readonly code: TurnModelErrorCode;
  readonly modelPath: string;
  constructor(message: string, options: { code: TurnModelErrorCode; modelPath: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.code = options.code;
    this.modelPath = options.modelPath;
  }
}
