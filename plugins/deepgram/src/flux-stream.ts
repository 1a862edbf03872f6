import { APIError, type STTEvent } from '@voxwire/agents/provider-utils';
import { emitMetrics } from './metrics.js';
import { DeepgramSocketStream, type SocketStreamConfig } from './socket-stream.js';
import type { DeepgramSpeechAlternative, DeepgramWord } from './transcript.js';

const MS_PER_S = 1000;

/**
 * One Flux stream (`/v2/listen`): Deepgram decides the end of the turn. `TurnInfo` events become:
 * - `StartOfTurn` → `start_of_speech`;
 * - `Update` → `interim_transcript`; `EagerEndOfTurn` → `preflight_transcript`, on which the session
 *   can start its reply early (`turnHandling.preemptiveGeneration`);
 * - `TurnResumed` → nothing: the turn goes on;
 * - `EndOfTurn` → `final_transcript` then `end_of_speech`, which is what `turnDetection: 'stt'` commits on.
 * `flush()` sends `ForceEndTurn`. Flux's `CloseStream` does not end the turn in progress, so after
 * `endInput()` its last `Update` is reported as the final transcript.
 */
export class DeepgramFluxStream extends DeepgramSocketStream {
  private inTurn = false;
  private lastUpdate: DeepgramSpeechAlternative | undefined;
  private finalizedUntilMs = 0;

  constructor(
    config: SocketStreamConfig,
    private readonly language: string | undefined,
  ) {
    super(config);
  }

  protected handle(
    message: Record<string, unknown>,
    offsetMs: number,
    requestId: string | undefined,
  ): STTEvent[] {
    if (message.type === 'Error') {
      const code = typeof message.code === 'string' ? message.code : 'unknown';
      const description = typeof message.description === 'string' ? message.description : '';
      throw new APIError(`${this.config.label}: Flux reported ${code}: ${description}`, {
        retryable: false,
        body: message,
      });
    }
    if (message.type !== 'TurnInfo') return [];
    const { event, audio_window_start: windowStart, audio_window_end: windowEnd, transcript } = message;
    if (typeof windowStart !== 'number' || typeof windowEnd !== 'number' || typeof transcript !== 'string') {
      this.warn(
        `${this.config.label}: ignored a malformed TurnInfo: ${JSON.stringify(message).slice(0, 160)}`,
      );
      return [];
    }
    const startMs = offsetMs + windowStart * MS_PER_S;
    const endMs = offsetMs + windowEnd * MS_PER_S;
    const alternative = this.alternative(message, transcript, startMs, endMs, offsetMs);
    const events: STTEvent[] = [];
    switch (event) {
      case 'StartOfTurn':
        if (!this.inTurn && endMs > this.finalizedUntilMs) {
          this.inTurn = true;
          events.push({ type: 'start_of_speech' });
        }
        if (alternative.text !== '') events.push({ type: 'interim_transcript', alternatives: [alternative] });
        break;
      case 'Update':
      case 'EagerEndOfTurn':
        if (!this.inTurn) {
          // Nobody is speaking: everything up to here is settled.
          this.acknowledgeUntil(endMs);
          break;
        }
        if (alternative.text !== '') {
          this.lastUpdate = alternative;
          const type = event === 'EagerEndOfTurn' ? 'preflight_transcript' : 'interim_transcript';
          events.push({ type, alternatives: [alternative] });
        }
        break;
      case 'EndOfTurn':
        if (alternative.text !== '') {
          if (!this.inTurn) events.push({ type: 'start_of_speech' });
          events.push({ type: 'final_transcript', alternatives: [alternative] });
          this.reportFinal(alternative, message.trigger === 'manual', requestId);
          events.push({ type: 'end_of_speech' });
        } else if (this.inTurn) {
          events.push({ type: 'end_of_speech' });
        }
        this.inTurn = false;
        this.lastUpdate = undefined;
        this.acknowledgeUntil(endMs);
        break;
      default:
        // TurnResumed (the turn goes on) and events newer than this code.
        break;
    }
    return events;
  }

  protected override ended(): STTEvent[] {
    const last = this.lastUpdate;
    if (!this.inTurn) return [];
    this.inTurn = false;
    this.lastUpdate = undefined;
    return last
      ? [{ type: 'final_transcript', alternatives: [last] }, { type: 'end_of_speech' }]
      : [{ type: 'end_of_speech' }];
  }

  private acknowledgeUntil(endMs: number): void {
    this.finalizedUntilMs = Math.max(this.finalizedUntilMs, endMs);
    this.acknowledge(endMs);
  }

  /** The turn's words (those a final already reported, from replayed audio, left out). */
  private alternative(
    message: Record<string, unknown>,
    transcript: string,
    startMs: number,
    endMs: number,
    offsetMs: number,
  ): DeepgramSpeechAlternative {
    const words = parseFluxWords(message.words, offsetMs);
    const kept = words.filter(
      (word) => word.startMs < 0 || (word.startMs + word.endMs) / 2 >= this.finalizedUntilMs,
    );
    const replayedAll = words.length === 0 && endMs <= this.finalizedUntilMs;
    const text = replayedAll
      ? ''
      : kept.length === words.length
        ? transcript.trim()
        : kept.map((word) => word.word).join(' ');
    const languages = message.languages;
    const language =
      Array.isArray(languages) && typeof languages[0] === 'string' ? languages[0] : this.language;
    const confidence = average(kept);
    return {
      text,
      ...(language ? { language } : {}),
      ...(confidence !== undefined ? { confidence } : {}),
      words: kept,
      startMs,
      endMs,
    };
  }

  private reportFinal(best: DeepgramSpeechAlternative, forced: boolean, requestId: string | undefined): void {
    const lastWord = best.words.at(-1);
    const spokenAt = lastWord && lastWord.endMs >= 0 ? this.pushedAt(lastWord.endMs) : undefined;
    emitMetrics(this.metrics(), {
      type: 'final_transcript',
      label: this.config.label,
      requestId,
      endOfSpeechToFinalMs: spokenAt === undefined ? undefined : Math.max(0, this.now() - spokenAt),
      fromFinalize: forced,
      audioProcessedMs: Math.max(this.audioProcessedMs, best.endMs),
    });
  }
}

/** Flux words carry times only sometimes; a word without them gets -1 (never dropped as replayed). */
function parseFluxWords(raw: unknown, offsetMs: number): DeepgramWord[] {
  if (!Array.isArray(raw)) return [];
  const words: DeepgramWord[] = [];
  for (const item of raw) {
    if (typeof item !== 'object' || item === null) continue;
    const { word, confidence, start, end } = item as Record<string, unknown>;
    if (typeof word !== 'string') continue;
    const timed = typeof start === 'number' && typeof end === 'number';
    words.push({
      word,
      punctuatedWord: undefined,
      startMs: timed ? offsetMs + start * MS_PER_S : -1,
      endMs: timed ? offsetMs + end * MS_PER_S : -1,
      confidence: typeof confidence === 'number' ? confidence : undefined,
      speaker: undefined,
    });
  }
  return words;
}

function average(words: readonly DeepgramWord[]): number | undefined {
  const scores = words.map((word) => word.confidence).filter((c): c is number => c !== undefined);
  return scores.length > 0 ? scores.reduce((a, b) => a + b, 0) / scores.length : undefined;
}
