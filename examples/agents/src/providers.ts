import type { LLM, NoticeLevel, STT, TTS, TurnDetector, TurnHandlingOptions } from '@voxwire/agents';
import { DeepgramSTT } from '@voxwire/plugin-deepgram';
import { EspeakTTS } from '@voxwire/plugin-espeak';
import { CartesiaTTS } from '@voxwire/plugin-cartesia';
import * as openai from '@voxwire/plugin-openai';
import { ENDPOINTING_PRESET, EndOfTurnModel } from '@voxwire/plugin-turn-detector';
import { HeardSpeech } from './offline/heard-speech.js';
import { OfflineLLM } from './offline/offline-llm.js';
import { ReplayTTS } from './offline/replay-tts.js';

export interface Providers {
  stt: STT;
  llm: LLM;
  tts: TTS;
  /** True when an LLM and a speech recognizer can hold a real conversation. */
  understands: boolean;
  /** The end-of-turn model, whenever a speech recognizer gives it words to judge. */
  turnDetector: TurnDetector | undefined;
  turnHandling: Partial<TurnHandlingOptions>;
  /** What runs, and which keys would unlock more: shown on the playground page. */
  notices: Array<{ level: NoticeLevel; message: string }>;
}

type Env = Record<string, string | undefined>;

/**
 * Picks providers from the environment, falling back to local ones so that the loop always runs:
 * - LLM: OpenAI (`OPENAI_API_KEY`) or any OpenAI-compatible server (`OPENAI_BASE_URL`, `OPENAI_MODEL`);
 *   else an offline stand-in that says what it heard;
 * - STT: Deepgram's streaming recognizer (`DEEPGRAM_API_KEY`); else OpenAI with a key; else the length
 *   of each utterance;
 * - TTS: Cartesia (`CARTESIA_API_KEY`, streaming over one WebSocket); else OpenAI with a key; else
 *   espeak-ng when installed; else playing back what it heard.
 */
export async function chooseProviders(env: Env = process.env): Promise<Providers> {
  const notices: Providers['notices'] = [];
  const key = nonEmpty(env.OPENAI_API_KEY);
  const baseURL = nonEmpty(env.OPENAI_BASE_URL);
  const heard = new HeardSpeech();
  // The environment given is the one that counts (the plugin would read process.env otherwise).
  const clientOptions = { ...(key ? { apiKey: key } : {}), ...(baseURL ? { baseURL } : {}) };

  let llm: LLM;
  let llmName: string;
  if (key || baseURL) {
    const model = nonEmpty(env.OPENAI_MODEL) ?? (baseURL ? undefined : 'gpt-4.1-mini');
    if (!model) {
      notices.push({
        level: 'warn',
        message: `OPENAI_BASE_URL is set (${baseURL}) but OPENAI_MODEL is not: set it to the model your server serves (e.g. llama3.2). Using "llama3.2".`,
      });
    }
    llm = new openai.LLM({ model: model ?? 'llama3.2', ...clientOptions });
    llmName = `${model ?? 'llama3.2'}${baseURL ? ` at ${baseURL}` : ''}`;
  } else {
    llm = new OfflineLLM();
    llmName = 'offline stand-in';
  }

  let stt: STT = heard;
  let sttName = 'offline (utterance length only)';
  if (key) {
    stt = new openai.STT({ ...clientOptions });
    sttName = 'OpenAI transcription';
  }
  const deepgramKey = nonEmpty(env.DEEPGRAM_API_KEY);
  if (deepgramKey) {
    // Streaming: words arrive while the user speaks, and the turn's last ones as soon as it is committed.
    stt = new DeepgramSTT({ apiKey: deepgramKey });
    sttName = 'Deepgram (nova-3, streaming)';
  }

  let tts: TTS;
  let ttsName: string;
  const cartesiaKey = nonEmpty(env.CARTESIA_API_KEY);
  if (cartesiaKey) {
    tts = new CartesiaTTS({ apiKey: cartesiaKey });
    ttsName = 'Cartesia (streaming)';
  } else if (key) {
    tts = new openai.TTS({ voice: 'alloy', ...clientOptions });
    ttsName = 'OpenAI speech';
  } else if (await espeakAvailable()) {
    tts = new EspeakTTS();
    ttsName = 'espeak-ng (local)';
  } else {
    tts = new ReplayTTS(heard);
    ttsName = 'replay of what you said';
    notices.push({
      level: 'warn',
      message:
        'No local voice: espeak-ng is not installed, so the agent plays back what it heard. Install it (sudo apt-get install espeak-ng, or brew install espeak-ng) to hear it speak.',
    });
  }

  const understands = stt !== heard && !(llm instanceof OfflineLLM);
  notices.unshift({
    level: 'info',
    message: understands
      ? `Full conversation: speech recognition by ${sttName}, replies by ${llmName}, voice by ${ttsName}.`
      : `Running offline: Silero VAD hears when you start and stop speaking, the agent takes turns and stops when you talk over it, and answers with ${ttsName}. It cannot understand words: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible server) and restart for a full conversation.`,
  });
  // With words to judge, the model picks the delay: the session waits for the transcript of a
  // recognizer that transcribes whole utterances, then answers at once or holds on for the rest.
  const turnDetector = stt === heard ? undefined : await EndOfTurnModel.load();
  return {
    stt,
    llm,
    tts,
    understands,
    turnDetector,
    // The offline stand-in is instant; without words, silence alone ends the turn.
    turnHandling: turnDetector ? { ...ENDPOINTING_PRESET.turnHandling } : { minEndpointingDelay: 600 },
    notices,
  };
}

let espeak: Promise<boolean> | undefined;

function espeakAvailable(): Promise<boolean> {
  espeak ??= EspeakTTS.check().then(
    () => true,
    () => false,
  );
  return espeak;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
