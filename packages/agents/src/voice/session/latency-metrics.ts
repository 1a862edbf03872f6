import type { Clock } from '../../time/clock.js';
import type { ActiveAgent } from '../agent/active-agent.js';
import type { SpeechHandle } from '../speech/speech-handle.js';
import type { CommittedTurn } from '../turn/user-turn-tracker.js';
import type { SessionReporter } from './session-reporter.js';

export interface LatencyMetricsDeps {
  clock: Clock;
  reporter: Pick<SessionReporter, 'metrics'>;
  /** The TTS the metrics are labelled with. */
  providers: Pick<ActiveAgent, 'tts'>;
}

/**
 * How long the user waits: from the end of their speech to the commit of the turn (`eou`) and to the
 * first frame of the reply (`turn`), and how long the TTS takes to its first audio (`tts`). The LLM's
 * own timings are measured where it is called (the reply pipeline).
 */
export class LatencyMetrics {
  private lastSpeechAt: number | undefined;

  constructor(private readonly deps: LatencyMetricsDeps) {}

  /** When the user last spoke, as of the last committed turn that knew it. */
  get lastUserSpeechAtMs(): number | undefined {
    return this.lastSpeechAt;
  }

  turnCommitted(turn: CommittedTurn): void {
    if (turn.lastSpeechAtMs === undefined) return;
    this.lastSpeechAt = turn.lastSpeechAtMs;
    this.deps.reporter.metrics({
      type: 'eou',
      turnId: turn.turnId,
      endOfUtteranceDelayMs: turn.committedAtMs - turn.lastSpeechAtMs,
      transcriptionDelayMs:
        turn.finalTranscriptAtMs !== undefined
          ? Math.max(0, turn.finalTranscriptAtMs - turn.lastSpeechAtMs)
          : undefined,
    });
  }

  /** The first frame of a step reached the output: a reply to a user turn is heard from now on. */
  firstFrameSent(handle: SpeechHandle): void {
    if (handle.turnId === undefined || this.lastSpeechAt === undefined || handle.source !== 'user_turn')
      return;
    this.deps.reporter.metrics({
      type: 'turn',
      turnId: handle.turnId,
      speechId: handle.id,
      endToEndLatencyMs: this.deps.clock.now() - this.lastSpeechAt,
    });
  }

  ttsFirstByte(handle: SpeechHandle, ttfbMs: number): void {
    this.deps.reporter.metrics({
      type: 'tts',
      speechId: handle.id,
      label: this.deps.providers.tts?.label ?? 'tts',
      ttfbMs,
    });
  }
}
