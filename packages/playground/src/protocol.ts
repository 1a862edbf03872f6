/**
 * What the page and the server say to each other over the socket. Text messages are JSON objects with a
 * `type`; binary messages carry audio:
 * - page -> server: little-endian Int16 mono PCM at the rate announced in `hello`;
 * - server -> page: a 4-byte little-endian segment number, then Int16 mono PCM at `outputSampleRate`.
 * The page's script (public/app.js) mirrors these types.
 */
export const PROTOCOL_VERSION = 1;

export type ClientMessage =
  | { type: 'hello'; protocol: number; sampleRate: number }
  /** The first sample of a segment became audible. */
  | { type: 'playback_started'; segment: number }
  | { type: 'playback_progress'; segment: number; playedMs: number }
  /** The segment played to its end, or was cleared (`interrupted`). */
  | { type: 'playback_finished'; segment: number; playedMs: number; interrupted: boolean }
  /** Text typed on the page instead of spoken. */
  | { type: 'user_text'; text: string };

export type ServerMessage =
  | { type: 'ready'; jobId: string; outputSampleRate: number; title: string }
  | { type: 'notice'; level: 'info' | 'warn' | 'error'; message: string }
  | { type: 'user_state'; state: string }
  | { type: 'agent_state'; state: string }
  | { type: 'user_transcript'; text: string; final: boolean }
  /** A piece of the agent's transcript that just became audible. */
  | { type: 'agent_text'; text: string }
  | { type: 'agent_text_end' }
  | { type: 'message'; role: string; text: string; interrupted: boolean }
  | { type: 'tool_call'; callId: string; name: string; arguments: string }
  | { type: 'tool_output'; callId: string; name: string; output: string; isError: boolean }
  | { type: 'metrics'; metrics: Record<string, unknown> }
  | { type: 'false_interruption'; resumed: boolean }
  | { type: 'error'; source: string; message: string; recoverable: boolean }
  /** No more audio for this segment: play what is buffered, then report `playback_finished`. */
  | { type: 'segment_end'; segment: number }
  /** Stop this segment now and report how much of it was heard. */
  | { type: 'clear'; segment: number }
  | { type: 'pause' }
  | { type: 'resume' }
  /** Counters of what was dropped because one side was too slow. */
  | { type: 'stats'; inputFramesDropped: number; outputFramesDropped: number }
  /** The job is over; `reconnect` asks the page to start a new session at once (e.g. after a reload). */
  | { type: 'ended'; reason: string; reconnect: boolean };

/** Parses a page message, or returns undefined for anything malformed (a page may be stale or hostile). */
export function parseClientMessage(text: string): ClientMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as Record<string, unknown>;
  const num = (key: string) => typeof m[key] === 'number' && Number.isFinite(m[key]);
  switch (m.type) {
    case 'hello':
      return num('protocol') && num('sampleRate') ? (m as ClientMessage) : undefined;
    case 'playback_started':
      return num('segment') ? (m as ClientMessage) : undefined;
    case 'playback_progress':
      return num('segment') && num('playedMs') ? (m as ClientMessage) : undefined;
    case 'playback_finished':
      return num('segment') && num('playedMs') && typeof m.interrupted === 'boolean'
        ? (m as ClientMessage)
        : undefined;
    case 'user_text':
      return typeof m.text === 'string' ? (m as ClientMessage) : undefined;
    default:
      return undefined;
  }
}

/** Sample rates a page may announce: what browsers' AudioContexts use, and 8-16 kHz for small clients. */
export function isSupportedInputRate(rate: number): boolean {
  return Number.isInteger(rate) && rate >= 8000 && rate <= 192_000;
}
