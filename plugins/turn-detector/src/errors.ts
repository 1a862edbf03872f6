import { VoxwireError } from '@voxwire/agents';

export type TurnModelErrorCode = 'not_found' | 'invalid' | 'unsupported' | 'load_failed';

/**
 * The end-of-turn model could not be loaded: its description, tokenizer or ONNX file is missing
 * (`not_found`), the description, tokenizer or model's inputs are not what this package can use
 * (`invalid`), a tokenizer is of a kind this package does not implement (`unsupported`, the message
 * names the kind), or onnxruntime rejected the file (`load_failed`). The message and `modelPath` name
 * the file.
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
