import {
  type ProviderCallOptions,
  SPECIFICATION_VERSION,
  type StreamingTTS,
  type SynthesizedAudio,
} from '@voxwire/agents/provider-utils';
import { synthesizeBytes } from './bytes.js';
import { type CartesiaTTSStream, ContextStream } from './context-stream.js';
import { KeyScrubber } from './errors.js';
import { type CartesiaTTSOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { generationRequest } from './protocol.js';
import { SocketPool } from './socket-pool.js';

/**
 * Cartesia text-to-speech (spec v1 `StreamingTTS`). `stream()` speaks over Cartesia's WebSocket: one
 * socket per TTS instance, opened on first use and shared by every speech (each its own context), so
 * a reply does not pay a TLS handshake. `synthesize()` speaks one whole text over `POST /tts/bytes`.
 *
 * The protocol is spoken directly with `ws` rather than through `@cartesia/cartesia-js`: that SDK's ESM
 * build cannot open its WebSocket on Node 20, it always dials `wss:` whatever the base URL, and an
 * error message becomes an unhandled rejection unless a listener is attached.
 */
export class CartesiaTTS implements StreamingTTS {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label: string;
  readonly sampleRate: number;
  readonly numChannels = 1;
  readonly model: string;
  private readonly options: ResolvedOptions;
  private readonly scrubber: KeyScrubber;
  private readonly pool: SocketPool;
  private readonly request: Record<string, unknown>;

  /** Throws `CartesiaConfigError` without an API key (option or `CARTESIA_API_KEY`) or with a bad option. */
  constructor(options: CartesiaTTSOptions = {}) {
    this.options = resolveOptions(options, process.env);
    this.model = this.options.model;
    this.label = `cartesia/${this.model}`;
    this.sampleRate = this.options.sampleRate;
    this.scrubber = new KeyScrubber(this.options.apiKey);
    this.request = generationRequest(this.options);
    this.pool = new SocketPool({
      label: this.label,
      url: this.options.webSocketURL,
      headers: { 'X-API-Key': this.options.apiKey, 'Cartesia-Version': this.options.apiVersion },
      clock: this.options.clock,
      connectTimeoutMs: this.options.connectTimeoutMs,
      scrubber: this.scrubber,
    });
  }

  /** One speech; text may be pushed in any fragments. See `CartesiaTTSStream`. */
  stream(options: ProviderCallOptions = {}): CartesiaTTSStream {
    return new ContextStream(
      {
        label: this.label,
        options: this.options,
        pool: this.pool,
        scrubber: this.scrubber,
        request: this.request,
      },
      options,
    );
  }

  synthesize(text: string, options: ProviderCallOptions = {}): AsyncIterable<SynthesizedAudio> {
    return synthesizeBytes(
      { label: this.label, options: this.options, scrubber: this.scrubber, request: this.request },
      text,
      options,
    );
  }

  /**
   * Opens the shared socket now, so that the first speech does not wait for the handshake. A failure
   * here is not reported: the first speech connects again and fails with the error if it persists.
   */
  prewarm(): void {
    this.pool.acquire(new AbortController().signal).catch(() => {});
  }

  /** Closes the shared socket; speeches still running fail with `APIConnectionError`. */
  async close(): Promise<void> {
    this.pool.close();
  }
}
