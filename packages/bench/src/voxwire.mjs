// Voxwire driven through its public API: one SileroVAD per process shared by every session, and the
// bench's instant fakes for STT, LLM and TTS (the same behaviour as livekit.mjs's fakes).
import { Agent, AgentSession, AudioFrame, resolveTurnHandling } from '@voxwire/agents';
import { AudioOutputBase, Channel, SPECIFICATION_VERSION } from '@voxwire/agents/provider-utils';
import { FRAME_SAMPLES, RATE } from './audio.mjs';
import {
  REPLY,
  TTS_FRAME_SAMPLES,
  TTS_MS_PER_CHAR,
  TTS_RATE,
  turnSettings,
  vadSettings,
} from './settings.mjs';

const SILENT = new Int16Array(TTS_FRAME_SAMPLES);
const framesFor = (text) => Math.max(1, Math.round((text.length * TTS_MS_PER_CHAR) / 20));

const unavailable = (message) => Object.assign(new Error(message), { unavailable: true });

/** Whether this build of the core knows `turnHandling.preemptiveGeneration` (a wave-2 option). */
export function preemptiveAvailable() {
  return 'preemptiveGeneration' in resolveTurnHandling({});
}

/** `true`, or `{ ...defaults, enabled: true }` if the option turns out to be an object (as in LiveKit). */
function preemptiveOption() {
  const fallback = resolveTurnHandling({}).preemptiveGeneration;
  return typeof fallback === 'object' && fallback !== null ? { ...fallback, enabled: true } : true;
}

/** The turn-detector plugin, when it is installed beside the bench; undefined otherwise. */
export async function loadTurnDetectorPlugin() {
  try {
    return await import('@voxwire/plugin-turn-detector');
  } catch {
    return undefined;
  }
}

/** A final transcript the moment the session's VAD says the user stopped: `final(text)` pushes it. */
class InstantSTT {
  specificationVersion = SPECIFICATION_VERSION;
  label = 'bench/instant-stt';
  kind = 'streaming';
  inputSampleRates = [RATE];
  channels = new Set();
  stream() {
    const channel = new Channel({ capacity: 16, overflow: 'drop-oldest', name: 'bench-stt' });
    this.channels.add(channel);
    const release = () => {
      channel.close();
      this.channels.delete(channel);
    };
    return {
      pushFrame() {},
      flush() {},
      endInput: release,
      close: async () => release(),
      [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
    };
  }
  final(text) {
    for (const channel of this.channels) {
      channel.trySend({ type: 'final_transcript', alternatives: [{ text, language: 'en' }] });
    }
  }
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

class InstantLLM {
  specificationVersion = SPECIFICATION_VERSION;
  label = 'bench/instant-llm';
  model = 'instant';
  supportsToolCalls = true;
  constructor(ttftMs) {
    this.ttftMs = ttftMs;
  }
  async *chat({ signal }) {
    if (this.ttftMs > 0) await sleep(this.ttftMs, signal);
    if (signal?.aborted) return;
    yield { type: 'text_delta', text: REPLY };
    yield { type: 'finish', reason: 'stop' };
  }
}

/** Silent audio, 60 ms per character, all of it at once. */
class InstantTTS {
  specificationVersion = SPECIFICATION_VERSION;
  label = 'bench/instant-tts';
  kind = 'streaming';
  sampleRate = TTS_RATE;
  numChannels = 1;
  async *synthesize(text) {
    for (let i = framesFor(text); i > 0; i--)
      yield { frame: new AudioFrame(SILENT, TTS_RATE, 1, TTS_FRAME_SAMPLES) };
  }
  stream() {
    const out = new Channel({ capacity: 4096, overflow: 'drop-newest', name: 'bench-tts' });
    return {
      pushText: (text) => {
        for (let i = framesFor(text); i > 0; i--) {
          out.trySend({ frame: new AudioFrame(SILENT, TTS_RATE, 1, TTS_FRAME_SAMPLES) });
        }
      },
      flush: () => {},
      endInput: () => out.close(),
      close: async () => out.dispose(),
      [Symbol.asyncIterator]: () => out[Symbol.asyncIterator](),
    };
  }
}

/**
 * Plays each segment in real time without holding audio: playback finishes when the segment's
 * duration has passed since its first frame. Reports the first frame and every cut.
 */
class PlayoutSink extends AudioOutputBase {
  sampleRate = undefined;
  canPause = false;
  playing = false;
  startedAt = 0;
  queuedMs = 0;
  timer = undefined;
  constructor(hooks) {
    super();
    this.hooks = hooks;
  }
  async onCaptureFrame(frame) {
    if (!this.playing) {
      if (this.timer) this.finish(false); // a new segment while the last one drains: it ends now
      this.playing = true;
      this.startedAt = performance.now();
      this.queuedMs = 0;
      this.notifyPlaybackStarted();
      this.hooks.onAgentAudio();
    }
    this.queuedMs += (frame.samplesPerChannel * 1000) / frame.sampleRate;
  }
  onFlush() {
    if (!this.playing) return;
    this.playing = false;
    const left = this.startedAt + this.queuedMs - performance.now();
    this.timer = setTimeout(() => this.finish(false), Math.max(0, left));
  }
  onClearBuffer() {
    if (!this.playing && !this.timer) return;
    this.playing = false;
    this.hooks.onCleared();
    this.finish(true);
  }
  finish(interrupted) {
    clearTimeout(this.timer);
    this.timer = undefined;
    const position = Math.min(this.queuedMs, performance.now() - this.startedAt);
    this.notifyPlaybackFinished({ playbackPositionMs: position, interrupted });
  }
  pause() {}
  resume() {}
}

/** Loads the VAD once; `createSession` then builds sessions that share it. */
export async function createVoxwire(variant) {
  const { SileroVAD } = await import('@voxwire/plugin-silero');
  let turnDetector;
  let preset;
  if (variant.turnDetector) {
    const plugin = await loadTurnDetectorPlugin();
    if (!plugin) throw unavailable('@voxwire/plugin-turn-detector is not installed beside the bench');
    turnDetector = await plugin.EndOfTurnModel.load();
    preset = plugin.ENDPOINTING_PRESET;
  }
  if (variant.preemptiveGeneration && !preemptiveAvailable()) {
    throw unavailable('turnHandling.preemptiveGeneration is not in this build of @voxwire/agents');
  }
  const vadOptions = vadSettings(preset ? { vadMinSilenceMs: preset.vadMinSilenceDurationMs } : variant);
  const vad = await SileroVAD.load({
    activationThreshold: vadOptions.activationThreshold,
    deactivationThreshold: vadOptions.activationThreshold,
    minSpeechDurationMs: vadOptions.minSpeechMs,
    minSilenceDurationMs: vadOptions.minSilenceMs,
    prefixPaddingDurationMs: vadOptions.prefixPaddingMs,
    ...(process.env.VX_INFERENCE ? { inference: process.env.VX_INFERENCE } : {}),
    ...(process.env.VX_SMALL_BATCH_KERNEL ? { smallBatchKernel: process.env.VX_SMALL_BATCH_KERNEL } : {}),
  });
  const turn = turnSettings(
    preset
      ? {
          minEndpointingDelayMs: preset.turnHandling.minEndpointingDelay,
          maxEndpointingDelayMs: preset.turnHandling.maxEndpointingDelay,
        }
      : variant,
  );
  const floorMs = Math.max(vadOptions.minSilenceMs, turn.minEndpointingDelayMs) + (variant.llmTtftMs ?? 0);

  async function createSession(hooks) {
    const stt = new InstantSTT();
    const input = new Channel({ capacity: 50, overflow: 'drop-oldest', name: 'bench-input' });
    const session = new AgentSession({
      vad,
      stt,
      llm: new InstantLLM(variant.llmTtftMs ?? 0),
      tts: new InstantTTS(),
      ...(turnDetector ? { turnDetector } : {}),
      turnHandling: {
        turnDetection: 'vad',
        minEndpointingDelay: turn.minEndpointingDelayMs,
        maxEndpointingDelay: turn.maxEndpointingDelayMs,
        minInterruptionDuration: turn.minInterruptionMs,
        minInterruptionWords: turn.minInterruptionWords,
        resumeFalseInterruption: false,
        // The plain thresholds, as LiveKit's `interruption.mode: 'vad'`: the default local detector waits
        // for words before it cuts (wordless speech only after 2 s), and this STT sends none while the
        // user is speaking.
        interruptionDetector: null,
        ...(variant.preemptiveGeneration ? { preemptiveGeneration: preemptiveOption() } : {}),
      },
      userAwayTimeout: null,
    });
    session.on('user_state_changed', (event) => {
      if (event.oldState === 'speaking' && event.newState === 'listening') {
        const text = hooks.heardText();
        if (text) stt.final(text);
      }
    });
    session.on('conversation_item_added', (event) => {
      if (event.item?.type === 'message' && event.item.role === 'user') hooks.onUserTurnCommitted();
    });
    session.on('error', (event) => hooks.onError(String(event.error?.message ?? event.error)));
    await session.start({
      agent: new Agent({ instructions: 'You are the bench agent.' }),
      input: { audio: input },
      output: { audio: new PlayoutSink(hooks) },
    });
    return {
      push(samples) {
        input.trySend(new AudioFrame(samples, RATE, 1, FRAME_SAMPLES));
      },
      async close() {
        input.close();
        await session.close();
      },
    };
  }

  return {
    name: 'voxwire',
    floorMs,
    createSession,
    async close() {
      await vad.close?.();
    },
  };
}
