import type { STTEvent } from '@voxwire/agents/provider-utils';
import { emitMetrics } from './metrics.js';
import { DeepgramSocketStream, type SocketStreamConfig } from './socket-stream.js';
import { type DeepgramSpeechAlternative, type DeepgramWord, parseAlternatives } from './transcript.js';

const MS_PER_S = 1000;

/**
 * One `/v1/listen` stream. Deepgram's messages become the core's events:
 * - `Results` with `is_final` → `final_transcript`, else `interim_transcript`; `speech_final` →
 *   `end_of_speech`;
 * - `SpeechStarted` (with `vad_events`), or the first words of an utterance → `start_of_speech`;
 * - `UtteranceEnd` → `end_of_speech`, when the utterance had not ended yet;
 * - `Metadata` and unknown types → nothing.
 *
 * After a reconnect the audio Deepgram had not finalized is sent again, and its clock restarts at the
 * replay's start: words are placed by stream time, and those a final already reported are dropped.
 */
export class DeepgramLiveStream extends DeepgramSocketStream {
  private speaking = false;
  /** Stream time up to which finals were reported: replayed audio before it was heard already. */
  private finalizedUntilMs = 0;
  /** Stream time where the last utterance ended: words before it belong to that utterance. */
  private speechEndedAtMs = Number.NEGATIVE_INFINITY;

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
    switch (message.type) {
      case 'Results':
        return this.results(message, offsetMs, requestId);
      case 'SpeechStarted': {
        const timestamp =
          typeof message.timestamp === 'number' ? offsetMs + message.timestamp * MS_PER_S : undefined;
        // A replay re-announces speech that was already transcribed.
        if (this.speaking || (timestamp !== undefined && timestamp < this.finalizedUntilMs)) return [];
        this.speaking = true;
        return [{ type: 'start_of_speech' }];
      }
      case 'UtteranceEnd': {
        if (!this.speaking) return [];
        this.speaking = false;
        const lastWordEnd = message.last_word_end;
        this.speechEndedAtMs = typeof lastWordEnd === 'number' ? offsetMs + lastWordEnd * MS_PER_S : offsetMs;
        return [{ type: 'end_of_speech' }];
      }
      default:
        // Metadata, and message types newer than this code.
        return [];
    }
  }

  private results(
    message: Record<string, unknown>,
    offsetMs: number,
    requestId: string | undefined,
  ): STTEvent[] {
    const { start, duration } = message;
    const channel = message.channel as { alternatives?: unknown } | undefined;
    const alternatives =
      typeof start === 'number' && typeof duration === 'number'
        ? parseAlternatives(channel?.alternatives, offsetMs, this.language, {
            startMs: offsetMs + start * MS_PER_S,
            endMs: offsetMs + (start + duration) * MS_PER_S,
          })
        : undefined;
    if (alternatives === undefined) {
      this.warn(
        `${this.config.label}: ignored a malformed Results message: ${JSON.stringify(message).slice(0, 160)}`,
      );
      return [];
    }
    const isFinal = message.is_final === true;
    const endMs = offsetMs + ((start as number) + (duration as number)) * MS_PER_S;
    const fresh = alternatives.map((alternative) => dropHeard(alternative, this.finalizedUntilMs));
    const best = fresh[0];
    const events: STTEvent[] = [];
    if (best && best.text !== '') {
      // A late final of an utterance that already ended does not start another one.
      const startsAfterEnd = (best.words[0]?.startMs ?? best.endMs) >= this.speechEndedAtMs;
      if (!this.speaking && startsAfterEnd) {
        this.speaking = true;
        events.push({ type: 'start_of_speech' });
      }
      events.push({ type: isFinal ? 'final_transcript' : 'interim_transcript', alternatives: fresh });
    }
    if (isFinal) {
      if (best && best.text !== '') this.reportFinal(best, message.from_finalize === true, requestId);
      this.finalizedUntilMs = Math.max(this.finalizedUntilMs, endMs);
      this.acknowledge(endMs);
    }
    if (message.speech_final === true && this.speaking) {
      this.speaking = false;
      this.speechEndedAtMs = endMs;
      events.push({ type: 'end_of_speech' });
    }
    return events;
  }

  private reportFinal(
    best: DeepgramSpeechAlternative,
    fromFinalize: boolean,
    requestId: string | undefined,
  ): void {
    const lastWord = best.words.at(-1);
    const spokenAt = lastWord ? this.pushedAt(lastWord.endMs) : undefined;
    emitMetrics(this.metrics(), {
      type: 'final_transcript',
      label: this.config.label,
      requestId,
      endOfSpeechToFinalMs: spokenAt === undefined ? undefined : Math.max(0, this.now() - spokenAt),
      fromFinalize,
      audioProcessedMs: Math.max(this.audioProcessedMs, best.endMs),
    });
  }
}

/**
 * The alternative without the words a final already reported (they were in replayed audio). A word
 * belongs to the side of `untilMs` its middle is on, so a word cut by a segment boundary is kept once.
 */
function dropHeard(alternative: DeepgramSpeechAlternative, untilMs: number): DeepgramSpeechAlternative {
  if (untilMs <= 0) return alternative;
  if (alternative.words.length === 0)
    return alternative.endMs <= untilMs ? { ...alternative, text: '' } : alternative;
  const kept: DeepgramWord[] = alternative.words.filter((word) => (word.startMs + word.endMs) / 2 >= untilMs);
  if (kept.length === alternative.words.length) return alternative;
  return {
    ...alternative,
    text: kept.map((word) => word.punctuatedWord ?? word.word).join(' '),
    words: kept,
    startMs: kept[0]?.startMs ?? alternative.endMs,
  };
}
