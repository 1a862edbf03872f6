import { APIConnectionError, type Clock, type TurnDetector } from '@voxwire/agents';
import { type ConversationTurn, SPECIFICATION_VERSION } from '@voxwire/agents/provider-utils';

export interface FakeTurnDetectorOptions {
  clock: Clock;
  /** Time a prediction takes. Default 50 ms. */
  latencyMs?: number;
  /** Probability returned when no rule matches. Default 0.9 (the user is done). */
  probability?: number;
  /** The last user message containing `text` (case-insensitive) gets `probability`. */
  rules?: ReadonlyArray<{ text: string; probability: number }>;
  /** Below this the end of turn is unlikely. Default 0.5. */
  threshold?: number;
}

/** An end-of-turn model with a scripted verdict and latency; outages make predictions fail. */
export class FakeTurnDetector implements TurnDetector {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'fake.FakeTurnDetector';
  private outageUntil = -1;

  constructor(private readonly options: FakeTurnDetectorOptions) {}

  outage(durationMs: number): void {
    this.outageUntil = this.options.clock.now() + Math.max(1, durationMs);
  }

  unlikelyThreshold(): number {
    return this.options.threshold ?? 0.5;
  }

  async predictEndOfTurn(
    turns: readonly ConversationTurn[],
    options: { signal?: AbortSignal } = {},
  ): Promise<number> {
    const clock = this.options.clock;
    await clock.sleep(this.options.latencyMs ?? 50, options.signal);
    if (clock.now() < this.outageUntil) throw new APIConnectionError('turn detector unavailable');
    const last = [...turns].reverse().find((turn) => turn.role === 'user');
    const text = last?.text.toLowerCase() ?? '';
    for (const rule of this.options.rules ?? []) {
      if (text.includes(rule.text.toLowerCase())) return rule.probability;
    }
    return this.options.probability ?? 0.9;
  }
}
