import { stat } from 'node:fs/promises';
import { SileroModelError } from './errors.js';
import { messageOf } from './session.js';

/** Rejects with `SileroModelError`, naming the path, when the model file is missing or obviously truncated. */
export async function checkModelFile(path: string): Promise<void> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a file');
    size = info.size;
  } catch (error) {
    throw new SileroModelError(`Silero VAD model not found at ${path}: ${messageOf(error)}`, path, {
      cause: error,
    });
  }
  if (size < 1024) {
    throw new SileroModelError(`Silero VAD model at ${path} is corrupt: only ${size} bytes`, path);
  }
}
