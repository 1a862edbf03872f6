import { STTStreamAdapter } from '../../adapters/stt-stream-adapter.js';
import { VoxwireError } from '../../errors.js';
import type { STT, STTStream, STTStreamOptions } from '../../providers/stt.js';
import type { Clock } from '../../time/clock.js';
import type { VAD } from '../../providers/vad.js';

/** A recognizer that only handles finished utterances was given without a VAD to cut them. */
export class MissingVADError extends VoxwireError {
  override name = 'MissingVADError';
}

const adapters = new WeakMap<STT, { vad: VAD; adapter: STTStreamAdapter }>();

/**
 * Opens a live recognition stream. A recognizer that cannot stream is driven through a VAD that cuts
 * the audio into utterances, so any STT plugs into a session the same way.
 */
export function openSttStream(
  stt: STT,
  vad: VAD | undefined,
  clock: Clock,
  options: STTStreamOptions,
): STTStream {
  if (stt.capabilities.streaming) return stt.stream(options);
  if (!vad) {
    throw new MissingVADError(
      `${stt.label} recognizes finished utterances only: give the session (or the agent) a VAD so it can cut the audio into utterances`,
    );
  }
  let entry = adapters.get(stt);
  if (!entry || entry.vad !== vad) {
    entry = { vad, adapter: new STTStreamAdapter(stt, vad, { clock }) };
    adapters.set(stt, entry);
  }
  return entry.adapter.stream(options);
}
