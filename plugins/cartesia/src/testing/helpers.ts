import type { ProviderProblem } from '@voxwire/agents/provider-utils';
import type { CartesiaSynthesizedAudio, CartesiaTTSStream } from '../context-stream.js';
import type { CartesiaTTSMetrics } from '../metrics.js';
import { CartesiaTTS } from '../tts.js';
import type { CartesiaTTSOptions } from '../options.js';
import type { FakeCartesiaServer } from './fake-cartesia-server.js';

export const KEY = 'test-key';

/** A TTS pointed at the fake, with short timeouts and fast retries, recording metrics. */
export function ttsFor(
  server: FakeCartesiaServer,
  options: CartesiaTTSOptions = {},
): { tts: CartesiaTTS; metrics: CartesiaTTSMetrics[] } {
  const metrics: CartesiaTTSMetrics[] = [];
  const tts = new CartesiaTTS({
    apiKey: KEY,
    baseURL: server.url,
    retry: { initialDelayMs: 5, maxDelayMs: 20, jitter: 0 },
    onMetrics: (m) => metrics.push(m),
    ...options,
  });
  return { tts, metrics };
}

export interface Spoken {
  chunks: CartesiaSynthesizedAudio[];
  /** The sample value of each chunk: which context of the fake it came from. */
  tags: number[];
  ms: number;
  error: unknown;
}

/** Reads a stream to its end (or error). */
export async function drain(stream: AsyncIterable<CartesiaSynthesizedAudio>): Promise<Spoken> {
  const out: Spoken = { chunks: [], tags: [], ms: 0, error: undefined };
  try {
    for await (const chunk of stream) {
      out.chunks.push(chunk);
      out.tags.push(chunk.frame.data[0] ?? 0);
      out.ms += chunk.frame.durationMs;
    }
  } catch (error) {
    out.error = error;
  }
  return out;
}

/** Pushes the deltas, ends the input and reads everything. */
export function speak(
  tts: CartesiaTTS,
  deltas: string[],
  problems: ProviderProblem[] = [],
): { stream: CartesiaTTSStream; done: Promise<Spoken> } {
  const stream = tts.stream({ onProblem: (p) => problems.push(p) });
  for (const delta of deltas) stream.pushText(delta);
  stream.endInput();
  return { stream, done: drain(stream) };
}

export function distinct(values: number[]): number[] {
  return [...new Set(values)];
}

/** Waits until `condition` holds, polling the real clock. */
export async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
