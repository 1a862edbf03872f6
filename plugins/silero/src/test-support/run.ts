import { AudioFrame, type VADEvent } from '@voxwire/agents';
import type { SileroVAD } from '../vad.js';
import type { Pcm } from './wav.js';

export interface Detected {
  startMs: number;
  endMs: number;
}

/** Cuts `pcm` into frames of `frameMs` (the last one shorter). */
export function framesOf(pcm: Pcm, frameMs: number): AudioFrame[] {
  const size = Math.max(1, Math.round((pcm.sampleRate * frameMs) / 1000));
  const frames: AudioFrame[] = [];
  for (let at = 0; at < pcm.samples.length; at += size) {
    const data = pcm.samples.slice(at, Math.min(at + size, pcm.samples.length));
    frames.push(new AudioFrame(data, pcm.sampleRate, 1, data.length));
  }
  return frames;
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
