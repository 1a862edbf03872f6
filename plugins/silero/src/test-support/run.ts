import { AudioFrame } from '@voxwire/agents';
import { splitFrame, type VADEvent } from '@voxwire/agents/provider-utils';
import type { SileroVAD } from '../vad.js';
import type { Pcm } from './fixtures.js';

export interface Detected {
  startMs: number;
  endMs: number;
}

/** Cuts `pcm` into frames of `frameMs` (the last one shorter). */
export function framesOf(pcm: Pcm, frameMs: number): AudioFrame[] {
  return splitFrame(new AudioFrame(pcm.samples, pcm.sampleRate, 1, pcm.samples.length), frameMs);
}

/** Pushes all frames, ends input and gathers every event. */
export async function runStream(vad: SileroVAD, frames: AudioFrame[]): Promise<VADEvent[]> {
  const stream = vad.stream();
  const events: VADEvent[] = [];
  const reading = (async () => {
    for await (const event of stream) events.push(event);
  })();
  for (const frame of frames) stream.pushFrame(frame);
  stream.endInput();
  await reading;
  await stream.close();
  return events;
}

export function segmentsOf(events: VADEvent[]): Detected[] {
  const segments: Detected[] = [];
  let start: number | undefined;
  for (const event of events) {
    if (event.type === 'start_of_speech') start = event.timestampMs;
    if (event.type === 'end_of_speech') {
      segments.push({ startMs: start ?? Number.NaN, endMs: event.timestampMs });
      start = undefined;
    }
  }
  return segments;
}
