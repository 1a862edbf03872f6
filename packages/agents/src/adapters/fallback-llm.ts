import { SPECIFICATION_VERSION } from '../providers/common.js';
import type { LLM, LLMChatOptions, LLMStreamPart } from '../providers/llm.js';
import { TypedEmitter } from '../utils/typed-emitter.js';
import {
  AvailabilityTracker,
  type FallbackAdapterEvents,
  type FallbackAdapterOptions,
  type ProviderAvailability,
  streamWithFallback,
} from './fallback-core.js';

export type LLMFallbackAdapterOptions = FallbackAdapterOptions<LLM>;

/**
 * An LLM that serves each request from the first healthy provider of a priority list. A provider that
 * fails before its first part is marked unavailable (`availability_changed`) and the request moves on;
 * one that fails after parts went out surfaces its error, since a second model would repeat the text.
 * Unavailable providers are probed every `retryIntervalMs` and come back when a probe succeeds.
 */
export class LLMFallbackAdapter extends TypedEmitter<FallbackAdapterEvents> implements LLM {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label: string;
  readonly supportsToolCalls: boolean;
  private readonly tracker: AvailabilityTracker<LLM>;

  constructor(
    readonly providers: readonly LLM[],
    options: LLMFallbackAdapterOptions = {},
  ) {
    super();
    this.tracker = new AvailabilityTracker(providers, {
      kind: 'LLM',
      labelOf: (llm) => llm.label,
      probe: options.probe ?? probeLLM,
      emitter: this,
      options,
    });
    this.label = `FallbackAdapter(${providers.map((p) => p.label).join(', ')})`;
    // Only what every provider supports, since any of them may serve the next request.
    this.supportsToolCalls = providers.every((p) => p.supportsToolCalls);
  }

  /** The model of the provider that would serve the next request. */
  get model(): string {
    return this.providers[this.tracker.next(new Set()) ?? 0]!.model;
  }

  chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart> {
    return streamWithFallback(
      this.tracker,
      (llm, signal) => llm.chat({ ...options, signal }),
      options.signal,
    );
  }

  availability(): ProviderAvailability[] {
    return this.tracker.snapshot();
  }

  /** Stops the probes and closes every provider. */
  async close(): Promise<void> {
    this.tracker.close();
    await Promise.all(this.providers.map((p) => p.close?.()));
  }
}

/** The smallest real request: one short user message, read up to the first part. */
async function probeLLM(llm: LLM, signal: AbortSignal): Promise<void> {
  const messages = [{ role: 'user', content: [{ type: 'text', text: 'ping' }] }] as const;
  const iterator = llm.chat({ messages, signal })[Symbol.asyncIterator]();
  await iterator.next();
  await iterator.return?.();
}
