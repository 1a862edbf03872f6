import { APIError } from '@voxwire/agents';
import type { ServerErrorFields } from './errors.js';
import type { ResolvedOptions } from './options.js';

/**
 * Cartesia's TTS wire format (docs.cartesia.ai, API reference "TTS / WebSocket" and "Bytes"): the
 * generation request both endpoints take, the WebSocket's context messages, and what the server sends.
 */

/** One word of a speech and when it is spoken, in ms from the start of the speech's audio. */
export interface WordTimestamp {
  word: string;
  startMs: number;
  endMs: number;
}

/** The fields every request of a context repeats unchanged (Cartesia requires them identical). */
export function generationRequest(options: ResolvedOptions): Record<string, unknown> {
  const voice: Record<string, unknown> =
    typeof options.voice === 'string'
      ? { mode: 'id', id: options.voice }
      : { mode: 'embedding', embedding: [...options.voice] };
  const controls = options.experimentalControls;
  if (controls && (controls.speed !== undefined || controls.emotion !== undefined)) {
    voice.__experimental_controls = { ...controls };
  }
  const request: Record<string, unknown> = {
    model_id: options.model,
    voice,
    language: options.language,
    output_format: { container: 'raw', encoding: options.encoding, sample_rate: options.sampleRate },
  };
  const config = options.generationConfig;
  if (config && Object.values(config).some((v) => v !== undefined)) {
    request.generation_config = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
  }
  return request;
}

/** What a Cartesia WebSocket sends, as far as this plugin reads it. */
export type ServerMessage =
  | { type: 'chunk'; contextId: string; data: string }
  | { type: 'timestamps'; contextId: string; words: WordTimestamp[] }
  | { type: 'flush_done'; contextId: string }
  | { type: 'done'; contextId: string }
  | { type: 'error'; contextId: string | undefined; fields: ServerErrorFields; body: unknown }
  /** A type this plugin does not use (`phoneme_timestamps`) or does not know yet. */
  | { type: 'other' };

/** A frame that is not what Cartesia sends; `contextId` when the frame still named one. */
export class MalformedFrameError extends APIError {
  override name = 'MalformedFrameError';
  constructor(
    message: string,
    readonly contextId: string | undefined,
  ) {
    super(message, { retryable: false });
  }
}

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}$/;

export function parseServerMessage(label: string, raw: string | Uint8Array): ServerMessage {
  if (typeof raw !== 'string') {
    throw new MalformedFrameError(`${label}: received a binary frame (Cartesia sends JSON text)`, undefined);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new MalformedFrameError(`${label}: received a frame that is not JSON: ${quote(raw)}`, undefined);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MalformedFrameError(
      `${label}: received a frame that is not an object: ${quote(raw)}`,
      undefined,
    );
  }
  const m = value as Record<string, unknown>;
  const contextId = typeof m.context_id === 'string' ? m.context_id : undefined;
  const malformed = (what: string): never => {
    throw new MalformedFrameError(
      `${label}: malformed "${String(m.type)}" frame (${what}): ${quote(raw)}`,
      contextId,
    );
  };
  // Errors first: older API versions send them without `type: "error"`, with an `error` string.
  if (m.type === 'error' || (m.type === undefined && typeof m.error === 'string')) {
    return { type: 'error', contextId, fields: errorFields(m), body: value };
  }
  switch (m.type) {
    case 'chunk':
      if (contextId === undefined) malformed('no context_id');
      if (typeof m.data !== 'string' || !BASE64.test(m.data)) malformed('data is not base64');
      return { type: 'chunk', contextId: contextId!, data: m.data as string };
    case 'timestamps':
      if (contextId === undefined) malformed('no context_id');
      return { type: 'timestamps', contextId: contextId!, words: words(m.word_timestamps, malformed) };
    case 'flush_done':
      if (contextId === undefined) malformed('no context_id');
      return { type: 'flush_done', contextId: contextId! };
    case 'done':
      if (contextId === undefined) malformed('no context_id');
      return { type: 'done', contextId: contextId! };
    default:
      return { type: 'other' };
  }
}

function words(value: unknown, malformed: (what: string) => never): WordTimestamp[] {
  if (value === undefined) return [];
  const t = value as { words?: unknown; start?: unknown; end?: unknown } | null;
  if (
    typeof t !== 'object' ||
    t === null ||
    !Array.isArray(t.words) ||
    !Array.isArray(t.start) ||
    !Array.isArray(t.end) ||
    t.start.length !== t.words.length ||
    t.end.length !== t.words.length
  ) {
    return malformed('word_timestamps needs words, start and end of the same length');
  }
  const { start, end } = t as { start: unknown[]; end: unknown[] };
  return t.words.map((word, i) => {
    const s = start[i];
    const e = end[i];
    if (typeof word !== 'string' || typeof s !== 'number' || typeof e !== 'number') {
      return malformed('a word or time of the wrong type');
    }
    // Seconds on the wire; milliseconds in the API, rounded to the microsecond the wire can express.
    return { word, startMs: round(s * 1000), endMs: round(e * 1000) };
  });
}

function errorFields(m: Record<string, unknown>): ServerErrorFields {
  const parts = [m.title, m.message, m.error].filter((p): p is string => typeof p === 'string' && p !== '');
  const status = typeof m.status_code === 'number' ? m.status_code : undefined;
  return {
    message: parts.length > 0 ? parts.join(': ') : 'no message',
    statusCode: status,
    code: typeof m.error_code === 'string' ? m.error_code : undefined,
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function quote(raw: string): string {
  return JSON.stringify(raw.length > 120 ? `${raw.slice(0, 120)}…` : raw);
}
