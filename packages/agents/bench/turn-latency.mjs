// Measures, on the real clock with instant providers, the time from a committed end of user turn to
// the first audio frame reaching the output: the engine's own overhead per reply.
// Run: pnpm --filter @voxwire/agents bench   (builds first; reads dist/)
import { Agent, AgentSession, AudioFrame } from '../dist/index.js';
import { AudioOutputBase, Channel, SPECIFICATION_VERSION } from '../dist/provider-utils.js';

const RATE = 24000;
const FRAME = AudioFrame.silence(RATE, 1, 480);

class InstantLLM {
  label = 'instant-llm';
  model = 'instant';
  specificationVersion = SPECIFICATION_VERSION;
  supportsToolCalls = true;
  async *chat() {
    yield { type: 'text_delta', text: 'Hello there, this is an instant reply.' };
    yield { type: 'finish', reason: 'stop' };
  }
}

class InstantTTS {
  label = 'instant-tts';
  sampleRate = RATE;
  numChannels = 1;
  specificationVersion = SPECIFICATION_VERSION;
  kind = 'streaming';
  async *synthesize() {
    yield { frame: FRAME };
  }
  stream() {
    const out = new Channel({ capacity: 64, overflow: 'block' });
    return {
      pushText: () => {
        for (let i = 0; i < 5; i++) out.trySend({ frame: FRAME });
      },
      flush: () => {},
      endInput: () => out.close(),
      close: async () => out.dispose(),
      [Symbol.asyncIterator]: () => out[Symbol.asyncIterator](),
    };
  }
}

/** A transcript-only STT: the bench pushes a final transcript, then commits the turn by hand. */
class ManualSTT {
  label = 'manual-stt';
  specificationVersion = SPECIFICATION_VERSION;
  kind = 'streaming';
  inputSampleRates = [RATE];
  constructor() {
    this.channel = new Channel({ capacity: 16, overflow: 'drop-oldest' });
  }
  stream() {
    const channel = this.channel;
    return {
      pushFrame() {},
      flush() {},
      endInput: () => channel.close(),
      close: async () => channel.close(),
      [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
    };
  }
  say(text) {
    this.channel.trySend({ type: 'final_transcript', alternatives: [{ text }] });
  }
}

class FirstFrameOutput extends AudioOutputBase {
  sampleRate = undefined;
  canPause = true;
  onFirst = undefined;
  async onCaptureFrame() {
    const callback = this.onFirst;
    this.onFirst = undefined;
    callback?.();
  }
  onFlush() {
    this.notifyPlaybackFinished({ playbackPositionMs: 0, interrupted: false });
  }
  onClearBuffer() {
    this.notifyPlaybackFinished({ playbackPositionMs: 0, interrupted: true });
  }
  pause() {}
  resume() {}
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

async function main() {
  const iterations = Number(process.env.BENCH_ITERATIONS ?? 500);
  const stt = new ManualSTT();
  const output = new FirstFrameOutput();
  const session = new AgentSession({
    stt,
    llm: new InstantLLM(),
    tts: new InstantTTS(),
    turnHandling: { turnDetection: 'manual' },
    userAwayTimeout: null,
  });
  // One frame of silence opens the recognizer's stream (the session opens it at the input's first frame).
  const input = new Channel({ capacity: 4, overflow: 'drop-oldest' });
  input.trySend(FRAME);
  await session.start({
    agent: new Agent({ instructions: 'bench' }),
    input: { audio: input },
    output: { audio: output },
  });
  const samples = [];
  for (let i = 0; i < iterations + 50; i++) {
    stt.say(`question number ${i}`);
    await new Promise((resolve) => setImmediate(resolve));
    const firstFrame = new Promise((resolve) => {
      output.onFirst = resolve;
    });
    const started = performance.now();
    session.commitUserTurn();
    await firstFrame;
    const elapsed = performance.now() - started;
    if (i >= 50) samples.push(elapsed);
    // Let the reply finish before the next turn.
    await session.currentSpeech?.waitForPlayout();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await session.close();
  samples.sort((a, b) => a - b);
  const median = percentile(samples, 50);
  const p95 = percentile(samples, 95);
  console.log(
    `turn-latency: committed end of turn -> first output frame, ${iterations} turns, instant providers, real clock`,
  );
  console.log(
    `  median ${median.toFixed(3)} ms   p95 ${p95.toFixed(3)} ms   max ${samples.at(-1).toFixed(3)} ms`,
  );
  console.log(`  target: median < 5 ms -> ${median < 5 ? 'met' : 'NOT met'}`);
}

await main();
