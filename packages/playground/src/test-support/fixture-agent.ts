import { Agent, AgentSession, AudioFrame, defineAgent, type LLM, type VAD } from '@voxwire/agents';
import {
  type BatchSTT,
  type BatchTTS,
  type LLMStreamPart,
  SPECIFICATION_VERSION,
  type SynthesizedAudio,
} from '@voxwire/agents/provider-utils';

/**
 * A deterministic, offline agent for transport tests: the real VAD it is given, an "STT" that reports
 * how long the utterance was, an LLM that always says `reply`, and a TTS that hums for `msPerChar` per
 * character (a 220 Hz tone with a syllable-like envelope, so the page has real samples to play).
 */
export function fixtureAgent(options: { vad: () => VAD; reply: string; msPerChar?: number }) {
  return defineAgent({
    async entry(ctx) {
      const vad = options.vad();
      const recognizer: BatchSTT = {
        specificationVersion: SPECIFICATION_VERSION,
        kind: 'batch',
        label: 'fixture.stt',
        inputSampleRates: [16_000],
        recognize: async (frames) => {
          const ms = frames.reduce((total, f) => total + f.durationMs, 0);
          return [{ text: `(${(ms / 1000).toFixed(1)} s of speech)` }];
        },
      };
      const session = new AgentSession({
        vad,
        stt: recognizer,
        llm: replyLLM(options.reply),
        tts: humTTS(options.msPerChar ?? 60),
        turnHandling: { minEndpointingDelay: 400 },
      });
      await session.start({ agent: new Agent({ instructions: 'test' }), ...ctx.connect(session) });
      ctx.notify('fixture agent ready');
    },
  });
}

function replyLLM(reply: string): LLM {
  return {
    specificationVersion: SPECIFICATION_VERSION,
    label: 'fixture.llm',
    model: 'fixed',
    supportsToolCalls: false,
    async *chat(): AsyncIterable<LLMStreamPart> {
      for (const word of reply.split(/(?<= )/u)) yield { type: 'text_delta', text: word };
      yield { type: 'finish', reason: 'stop' };
    },
  };
}

function humTTS(msPerChar: number): BatchTTS {
  const sampleRate = 24000;
  return {
    specificationVersion: SPECIFICATION_VERSION,
    kind: 'batch',
    label: 'fixture.tts',
    sampleRate,
    numChannels: 1,
    async *synthesize(text, opts): AsyncIterable<SynthesizedAudio> {
      const total = Math.round((text.length * msPerChar * sampleRate) / 1000);
      const chunk = sampleRate / 10;
      for (let start = 0; start < total; start += chunk) {
        if (opts?.signal?.aborted) return;
        const n = Math.min(chunk, total - start);
        const data = new Int16Array(n);
        for (let i = 0; i < n; i++) {
          const t = (start + i) / sampleRate;
          const envelope = 0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t);
          data[i] = Math.round(8000 * envelope * Math.sin(2 * Math.PI * 220 * t));
        }
        yield { frame: new AudioFrame(data, sampleRate, 1, n) };
      }
    },
  };
}
