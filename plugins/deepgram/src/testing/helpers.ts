import type { AudioFrame, ProviderProblem, STTEvent, STTStream } from '@voxwire/agents/provider-utils';
import type { DeepgramMetrics } from '../metrics.js';

/** Reads a stream to its end: the events, and the error it ended with, if any. */
export async function collect(
  stream: AsyncIterable<STTEvent>,
): Promise<{ events: STTEvent[]; error: unknown }> {
  const events: STTEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

/** `type` or `type:text`, for readable expectations. */
export function show(event: STTEvent): string {
  return 'alternatives' in event ? `${event.type}:${event.alternatives[0]?.text ?? ''}` : event.type;
}

/** The words of every final, in order: what the session would commit. */
export function finalText(events: readonly STTEvent[]): string {
  return events
    .filter((event) => event.type === 'final_transcript')
    .map((event) => ('alternatives' in event ? (event.alternatives[0]?.text ?? '') : ''))
    .filter((text) => text !== '')
    .join(' ');
}

/** Pushes frames at (roughly) real speed, so that server and client timings are like a microphone's. */
export async function pushPaced(
  stream: STTStream,
  frames: readonly AudioFrame[],
  speedUp = 10,
): Promise<void> {
  for (let i = 0; i < frames.length; i++) {
    stream.pushFrame(frames[i]!);
    // Every 100 ms of audio, let the network run.
    if (i % 5 === 4) await new Promise((resolve) => setTimeout(resolve, Math.max(1, 100 / speedUp)));
  }
}

export function recorder() {
  const problems: ProviderProblem[] = [];
  const metrics: DeepgramMetrics[] = [];
  return {
    problems,
    metrics,
    onProblem: (problem: ProviderProblem) => problems.push(problem),
    onMetrics: (m: DeepgramMetrics) => metrics.push(m),
  };
}

/** Waits until `check` holds, polling; fails after `ms`. */
export async function until(check: () => boolean, ms = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
