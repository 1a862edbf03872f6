import { AllProvidersFailedError, APITimeoutError } from '../errors.js';
import { type Clock, realClock } from '../time/clock.js';
import type { TypedEmitter } from '../utils/typed-emitter.js';
import { linkedController } from '../provider-utils/abort.js';
import { timeoutAfter } from '../provider-utils/timeout.js';
import { toAPIError } from './shared.js';

export interface AvailabilityChangedEvent {
  /** The provider's label. */
  provider: string;
  /** Its position in the adapter's list, since two providers may share a label. */
  index: number;
  available: boolean;
  /** The failure that made it unavailable. */
  error?: unknown;
}

/**
 * Events of every fallback adapter. A listener that throws is isolated by the emitter (see
 * `onListenerError`), so it cannot change which provider serves a request.
 */
export type FallbackAdapterEvents = {
  availability_changed: AvailabilityChangedEvent;
};

export interface ProviderAvailability {
  provider: string;
  index: number;
  available: boolean;
}

export interface FallbackAdapterOptions<P> {
  clock?: Clock;
  /**
   * Longest wait for a provider's first output (first LLM part, first audio chunk, a recognition
   * result); past it the attempt fails with `APITimeoutError` and the next provider is tried. Streaming
   * TTS also applies it between chunks while audio is due. Default 10000.
   */
  attemptTimeoutMs?: number;
  /** How often an unavailable provider is probed in the background. Default 5000. */
  retryIntervalMs?: number;
  /**
   * Health check of an unavailable provider: resolves when it works again. Each run gets
   * `attemptTimeoutMs`. The default makes the smallest real request of each kind (see the adapters).
   */
  probe?: (provider: P, signal: AbortSignal) => Promise<void>;
}

interface TrackerConfig<P> {
  kind: string;
  labelOf: (provider: P) => string;
  probe: (provider: P, signal: AbortSignal) => Promise<void>;
  emitter: TypedEmitter<FallbackAdapterEvents>;
  options: FallbackAdapterOptions<P>;
}

/**
 * Which providers of a fallback adapter are usable, and the background probes that bring failed ones
 * back. Probes run on the clock, one loop per unavailable provider, until it recovers or `close()`.
 */
export class AvailabilityTracker<P> {
  readonly clock: Clock;
  readonly attemptTimeoutMs: number;
  readonly retryIntervalMs: number;
  private readonly available: boolean[];
  private readonly recovering = new Map<number, AbortController>();
  private closed = false;

  constructor(
    readonly providers: readonly P[],
    private readonly config: TrackerConfig<P>,
  ) {
    if (providers.length === 0)
      throw new TypeError(`A ${config.kind} FallbackAdapter needs at least one provider`);
    const options = config.options;
    this.clock = options.clock ?? realClock();
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
    this.retryIntervalMs = options.retryIntervalMs ?? 5_000;
    if (!(this.attemptTimeoutMs > 0)) throw new RangeError(`attemptTimeoutMs must be positive`);
    if (!(this.retryIntervalMs > 0)) throw new RangeError(`retryIntervalMs must be positive`);
    this.available = providers.map(() => true);
  }

  label(index: number): string {
    return this.config.labelOf(this.providers[index]!);
  }

  snapshot(): ProviderAvailability[] {
    return this.providers.map((_, index) => ({
      provider: this.label(index),
      index,
      available: this.available[index] === true,
    }));
  }

  /**
   * The provider to try next: the first available one not yet tried, else the first unavailable one not
   * yet tried. Failed providers thus still get a last chance before a request fails entirely.
   */
  next(tried: ReadonlySet<number>, usable: (provider: P) => boolean = () => true): number | undefined {
    let fallback: number | undefined;
    for (let i = 0; i < this.providers.length; i++) {
      if (tried.has(i) || !usable(this.providers[i]!)) continue;
      if (this.available[i]) return i;
      fallback ??= i;
    }
    return fallback;
  }

  markFailed(index: number, error: unknown): void {
    if (this.closed || !this.available[index]) return;
    this.available[index] = false;
    const controller = new AbortController();
    this.recovering.set(index, controller);
    void this.recover(index, controller.signal);
    this.config.emitter.emit('availability_changed', {
      provider: this.label(index),
      index,
      available: false,
      error,
    });
  }

  markRecovered(index: number): void {
    if (this.closed || this.available[index]) return;
    this.available[index] = true;
    this.recovering.get(index)?.abort();
    this.recovering.delete(index);
    this.config.emitter.emit('availability_changed', { provider: this.label(index), index, available: true });
  }

  allFailed(errors: readonly unknown[]): AllProvidersFailedError {
    const details = errors.map((e) => (e instanceof Error ? e.message : String(e))).join('; ');
    return new AllProvidersFailedError(`All ${this.config.kind} providers failed: ${details}`, errors);
  }

  timeoutError(index: number): APITimeoutError {
    return new APITimeoutError(`${this.label(index)}: no output within ${this.attemptTimeoutMs} ms`);
  }

  /** Stops every probe. */
  close(): void {
    this.closed = true;
    for (const controller of this.recovering.values()) controller.abort();
    this.recovering.clear();
  }

  private async recover(index: number, signal: AbortSignal): Promise<void> {
    const provider = this.providers[index]!;
    while (!signal.aborted) {
      try {
        await this.clock.sleep(this.retryIntervalMs, signal);
      } catch {
        return;
      }
      const attempt = linkedController(signal);
      try {
        await timeoutAfter(
          this.config.probe(provider, attempt.signal),
          this.clock,
          this.attemptTimeoutMs,
          () => this.timeoutError(index),
        );
        if (!signal.aborted) this.markRecovered(index);
        return;
      } catch {
        // Still down; the next interval tries again.
      } finally {
        // Releases whatever the probe left open (a stream it stopped reading).
        attempt.abort();
        attempt.dispose();
      }
    }
  }
}

/**
 * The providers that failed since a request, or a live stream, last made progress, with their errors:
 * what decides the provider to try next and what `AllProvidersFailedError` reports.
 */
export class FailureStreak<P> {
  private readonly tried = new Set<number>();
  private errors: unknown[] = [];

  constructor(
    private readonly tracker: AvailabilityTracker<P>,
    private readonly usable?: (provider: P) => boolean,
  ) {}

  /** The provider to try next; throws `AllProvidersFailedError` once every usable one failed. */
  next(): number {
    const index = this.tracker.next(this.tried, this.usable);
    if (index === undefined) throw this.tracker.allFailed(this.errors);
    this.tried.add(index);
    return index;
  }

  /** The provider produced output: it works, and earlier failures no longer count. */
  progress(index: number): void {
    if (this.errors.length > 0) {
      this.errors = [];
      this.tried.clear();
      this.tried.add(index);
    }
    this.tracker.markRecovered(index);
  }

  failed(index: number, error: unknown): void {
    this.tracker.markFailed(index, error);
    this.errors.push(error);
  }
}

/**
 * Runs a one-shot request on each provider in turn until one succeeds. Rejects with the signal's reason
 * when the caller aborts, and with `AllProvidersFailedError` when every provider failed.
 */
export async function requestWithFallback<P, T>(
  tracker: AvailabilityTracker<P>,
  call: (provider: P, signal: AbortSignal) => Promise<T>,
  signal: AbortSignal | undefined,
  usable?: (provider: P) => boolean,
): Promise<T> {
  const streak = new FailureStreak(tracker, usable);
  for (;;) {
    const index = streak.next();
    const attempt = linkedController(signal);
    try {
      const result = await timeoutAfter(
        call(tracker.providers[index]!, attempt.signal),
        tracker.clock,
        tracker.attemptTimeoutMs,
        () => {
          const error = tracker.timeoutError(index);
          attempt.abort(error);
          return error;
        },
      );
      streak.progress(index);
      return result;
    } catch (error) {
      if (signal?.aborted) throw error;
      streak.failed(index, error);
    } finally {
      attempt.dispose();
    }
  }
}

/**
 * Streams from the first provider that produces output. A provider failing before its first item is
 * replaced by the next; once an item went out, a failure is rethrown instead, because replaying the
 * request elsewhere would repeat what the consumer already has. Aborting ends the stream quietly.
 */
export async function* streamWithFallback<P, T>(
  tracker: AvailabilityTracker<P>,
  open: (provider: P, signal: AbortSignal) => AsyncIterable<T>,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  const streak = new FailureStreak(tracker);
  for (;;) {
    const index = streak.next();
    const attempt = linkedController(signal);
    let iterator: AsyncIterator<T> | undefined;
    let produced = false;
    try {
      iterator = open(tracker.providers[index]!, attempt.signal)[Symbol.asyncIterator]();
      let result = await timeoutAfter(iterator.next(), tracker.clock, tracker.attemptTimeoutMs, () => {
        const error = tracker.timeoutError(index);
        attempt.abort(error);
        return error;
      });
      streak.progress(index);
      for (; !result.done; result = await iterator.next()) {
        produced = true;
        yield result.value;
      }
      return;
    } catch (error) {
      if (signal?.aborted) return;
      streak.failed(index, error);
      if (produced) throw toAPIError(error, tracker.label(index));
    } finally {
      // Aborting releases the provider's connection when the consumer stopped early or we moved on.
      attempt.abort();
      attempt.dispose();
      if (iterator?.return) Promise.resolve(iterator.return()).catch(() => {});
    }
  }
}
