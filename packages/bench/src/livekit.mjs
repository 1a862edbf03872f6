// @livekit/agents 1.9 driven through its public API (voice.AgentSession with custom audio input and
// output, fakes built on its stt/llm/tts base classes), with the same behaviour as voxwire.mjs's fakes
// and one @livekit/agents-plugin-silero VAD per process shared by every session.
import { ReadableStream } from 'node:stream/web';
import { FRAME_SAMPLES, RATE } from './audio.mjs';
import {
  REPLY,
  TTS_FRAME_SAMPLES,
  TTS_MS_PER_CHAR,
  TTS_RATE,
  turnSettings,
  vadSettings,
} from './settings.mjs';

const framesFor = (text) => Math.max(1, Math.round((text.length * TTS_MS_PER_CHAR) / 20));

export async function createLiveKit(variant) {
  if (variant.turnDetector) {
    // LiveKit's end-of-turn models download their weights from the Hugging Face hub, which is out of reach here.
    throw Object.assign(
      new Error('its turn detector models download from the Hugging Face hub, out of reach here'),
      {
        unavailable: true,
      },
    );
  }
  const agents = await import('@livekit/agents');
  const { AudioFrame } = await import('@livekit/rtc-node');
  const silero = await import('@livekit/agents-plugin-silero');
  const { voice, stt, llm, tts } = agents;
  agents.initializeLogger({ pretty: false, level: 'fatal' });
  const SILENT = new Int16Array(TTS_FRAME_SAMPLES);
  const silentFrame = () => new AudioFrame(SILENT, TTS_RATE, 1, TTS_FRAME_SAMPLES);

  class InstantSpeechStream extends stt.SpeechStream {
    label = 'bench/instant-stt';
    async run() {
      for await (const _ of this.input) {
        // Audio is heard by the VAD; the transcript comes from final().
      }
    }
    final(text) {
      if (this.closed || this.queue.closed) return;
      this.queue.put({
        type: stt.SpeechEventType.FINAL_TRANSCRIPT,
        alternatives: [{ language: 'en', text, startTime: 0, endTime: 0, confidence: 1 }],
      });
    }
  }

  class InstantSTT extends stt.STT {
    label = 'bench/instant-stt';
    streams = new Set();
    constructor() {
      super({ streaming: true, interimResults: false });
    }
    async _recognize() {
      throw new Error('streaming only');
    }
    stream() {
      const stream = new InstantSpeechStream(this);
      this.streams.add(stream);
      return stream;
    }
    final(text) {
      for (const stream of this.streams) {
        if (stream.closed) this.streams.delete(stream);
        else stream.final(text);
      }
    }
  }

  class InstantLLMStream extends llm.LLMStream {
    constructor(owner, options, ttftMs) {
      super(owner, options);
      this.ttftMs = ttftMs;
    }
    async run() {
      if (this.ttftMs > 0) {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, this.ttftMs);
          this.abortController.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      if (this.abortController.signal.aborted) return;
      this.queue.put({ id: 'bench', delta: { role: 'assistant', content: REPLY } });
    }
  }

  class InstantLLM extends llm.LLM {
    constructor(ttftMs) {
      super();
      this.ttftMs = ttftMs;
    }
    label() {
      return 'bench/instant-llm';
    }
    chat({ chatCtx, toolCtx, connOptions = agents.DEFAULT_API_CONNECT_OPTIONS }) {
      return new InstantLLMStream(this, { chatCtx, toolCtx, connOptions }, this.ttftMs);
    }
  }

  class InstantSynthesizeStream extends tts.SynthesizeStream {
    label = 'bench/instant-tts';
    async run() {
      let segment = 0;
      for await (const item of this.input) {
        if (item === InstantSynthesizeStream.FLUSH_SENTINEL) {
          this.queue.put(tts.SynthesizeStream.END_OF_STREAM);
          segment++;
          continue;
        }
        for (let i = framesFor(item); i > 0; i--) {
          this.queue.put({
            requestId: 'bench',
            segmentId: String(segment),
            frame: silentFrame(),
            final: false,
          });
        }
      }
    }
  }

  class InstantChunkedStream extends tts.ChunkedStream {
    label = 'bench/instant-tts';
    async run() {
      const n = framesFor(this.inputText);
      for (let i = 0; i < n; i++) {
        this.queue.put({ requestId: 'bench', segmentId: '0', frame: silentFrame(), final: i === n - 1 });
      }
    }
  }

  class InstantTTS extends tts.TTS {
    label = 'bench/instant-tts';
    constructor() {
      super(TTS_RATE, 1, { streaming: true });
    }
    synthesize(text, connOptions, abortSignal) {
      return new InstantChunkedStream(text, this, connOptions, abortSignal);
    }
    stream() {
      return new InstantSynthesizeStream(this);
    }
  }

  class PushAudioInput extends voice.AudioInput {
    constructor() {
      super();
      this.multiStream.addInputStream(
        new ReadableStream({
          start: (controller) => {
            this.controller = controller;
          },
        }),
      );
    }
    push(frame) {
      this.controller.enqueue(frame);
    }
  }

  /** The same real-time sink as voxwire.mjs's, on LiveKit's AudioOutput. */
  class PlayoutSink extends voice.AudioOutput {
    playing = false;
    startedAt = 0;
    queuedMs = 0;
    timer = undefined;
    constructor(hooks) {
      super(undefined, undefined, { pause: false });
      this.hooks = hooks;
    }
    async captureFrame(frame) {
      await super.captureFrame(frame);
      if (!this.playing) {
        if (this.timer) this.finish(false);
        this.playing = true;
        this.startedAt = performance.now();
        this.queuedMs = 0;
        this.onPlaybackStarted(Date.now());
        this.hooks.onAgentAudio();
      }
      this.queuedMs += (frame.samplesPerChannel * 1000) / frame.sampleRate;
    }
    flush() {
      super.flush();
      if (!this.playing) return;
      this.playing = false;
      const left = this.startedAt + this.queuedMs - performance.now();
      this.timer = setTimeout(() => this.finish(false), Math.max(0, left));
    }
    clearBuffer() {
      if (!this.playing && !this.timer) return;
      this.playing = false;
      this.hooks.onCleared();
      this.finish(true);
    }
    finish(interrupted) {
      clearTimeout(this.timer);
      this.timer = undefined;
      const position = Math.min(this.queuedMs, performance.now() - this.startedAt);
      this.onPlaybackFinished({ playbackPosition: position / 1000, interrupted });
    }
  }

  const vadOptions = vadSettings(variant);
  const vad = await silero.VAD.load({
    activationThreshold: vadOptions.activationThreshold,
    minSpeechDuration: vadOptions.minSpeechMs,
    minSilenceDuration: vadOptions.minSilenceMs,
    prefixPaddingDuration: vadOptions.prefixPaddingMs,
  });
  const turn = turnSettings(variant);
  const floorMs = Math.max(vadOptions.minSilenceMs, turn.minEndpointingDelayMs) + (variant.llmTtftMs ?? 0);

  async function createSession(hooks) {
    const sttInstance = new InstantSTT();
    const session = new voice.AgentSession({
      vad,
      stt: sttInstance,
      llm: new InstantLLM(variant.llmTtftMs ?? 0),
      tts: new InstantTTS(),
      userAwayTimeout: null,
      aecWarmupDuration: null,
      turnHandling: {
        turnDetection: 'vad',
        endpointing: {
          mode: 'fixed',
          minDelay: turn.minEndpointingDelayMs,
          maxDelay: turn.maxEndpointingDelayMs,
        },
        interruption: {
          mode: 'vad',
          minDuration: turn.minInterruptionMs,
          minWords: turn.minInterruptionWords,
          resumeFalseInterruption: false,
        },
        // On by default in 1.9: the VAD-only rows must not generate early.
        preemptiveGeneration: { enabled: Boolean(variant.preemptiveGeneration) },
      },
    });
    session.on(voice.AgentSessionEventTypes.UserStateChanged, (event) => {
      if (event.oldState === 'speaking' && event.newState === 'listening') {
        const text = hooks.heardText();
        if (text) sttInstance.final(text);
      }
    });
    session.on(voice.AgentSessionEventTypes.ConversationItemAdded, (event) => {
      if (event.item?.type === 'message' && event.item.role === 'user') hooks.onUserTurnCommitted();
    });
    session.on(voice.AgentSessionEventTypes.Error, (event) =>
      hooks.onError(String(event.error?.message ?? event.error)),
    );
    const input = new PushAudioInput();
    session.input.audio = input;
    session.output.audio = new PlayoutSink(hooks);
    await session.start({ agent: new voice.Agent({ instructions: 'You are the bench agent.' }) });
    return {
      push(samples) {
        input.push(new AudioFrame(samples, RATE, 1, FRAME_SAMPLES));
      },
      async close() {
        await session.close().catch(() => {});
      },
    };
  }

  return { name: 'livekit', floorMs, createSession, async close() {} };
}
