import { ChatContext } from '@voxwire/agents';
import { toLLMMessages } from '@voxwire/agents/provider-utils';
import { CartesiaTTS } from '@voxwire/plugin-cartesia';
import { DeepgramSTT } from '@voxwire/plugin-deepgram';
import { EspeakTTS } from '@voxwire/plugin-espeak';
import * as openai from '@voxwire/plugin-openai';
import { ENDPOINTING_PRESET, EndOfTurnModel } from '@voxwire/plugin-turn-detector';
import { describe, expect, it } from 'vitest';
import { HeardSpeech, heardSeconds } from './offline/heard-speech.js';
import { OfflineLLM, offlineReply } from './offline/offline-llm.js';
import { ReplayTTS } from './offline/replay-tts.js';
import { chooseProviders } from './providers.js';

describe('chooseProviders', () => {
  it('runs offline without keys, and says which keys unlock a conversation', async () => {
    const p = await chooseProviders({});
    expect(p.understands).toBe(false);
    expect(p.stt).toBeInstanceOf(HeardSpeech);
    expect(p.llm).toBeInstanceOf(OfflineLLM);
    expect([EspeakTTS, ReplayTTS].some((c) => p.tts instanceof c)).toBe(true);
    expect(p.notices[0]?.message).toMatch(/^Running offline: .*set OPENAI_API_KEY \(or OPENAI_BASE_URL/u);
    // No words to judge: silence alone ends the turn.
    expect(p.turnDetector).toBeUndefined();
    expect(p.turnHandling).toEqual({ minEndpointingDelay: 600 });
  });

  it('uses OpenAI for everything with a key', async () => {
    const p = await chooseProviders({ OPENAI_API_KEY: 'sk-test' });
    expect(p.understands).toBe(true);
    expect(p.stt).toBeInstanceOf(openai.STT);
    expect(p.llm).toBeInstanceOf(openai.LLM);
    expect(p.llm.model).toBe('gpt-4.1-mini');
    expect(p.tts).toBeInstanceOf(openai.TTS);
    expect(p.turnDetector).toBeInstanceOf(EndOfTurnModel);
    expect(p.turnHandling).toEqual(ENDPOINTING_PRESET.turnHandling);
    expect(p.notices[0]?.message).toMatch(/^Full conversation/u);
  });

  it('talks to a local OpenAI-compatible server for the LLM, and asks for its model name', async () => {
    const p = await chooseProviders({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' });
    expect(p.llm).toBeInstanceOf(openai.LLM);
    expect(p.llm.model).toBe('llama3.2');
    expect(p.stt).toBeInstanceOf(HeardSpeech);
    expect(p.notices.map((n) => n.message).join('\n')).toContain('OPENAI_MODEL is not');
    const named = await chooseProviders({
      OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1',
      OPENAI_MODEL: 'qwen',
    });
    expect(named.llm.model).toBe('qwen');
  });

  it('recognizes speech with Deepgram when DEEPGRAM_API_KEY is set, with or without OpenAI', async () => {
    const alone = await chooseProviders({ DEEPGRAM_API_KEY: 'dg-test-key' });
    expect(alone.stt).toBeInstanceOf(DeepgramSTT);
    expect(alone.stt.label).toBe('deepgram/nova-3');
    expect(alone.understands).toBe(false); // no LLM that understands words yet
    const both = await chooseProviders({ DEEPGRAM_API_KEY: 'dg-test-key', OPENAI_API_KEY: 'sk-test' });
    expect(both.stt).toBeInstanceOf(DeepgramSTT);
    expect(both.understands).toBe(true);
    // With words to judge, the end-of-turn model and its endpointing preset decide when the turn ends.
    expect(both.turnDetector).toBeDefined();
    expect(both.turnHandling).toEqual(ENDPOINTING_PRESET.turnHandling);
    expect(both.notices[0]?.message).toContain('speech recognition by Deepgram (nova-3, streaming)');
  });

  it('speaks with Cartesia when CARTESIA_API_KEY is set, with or without OpenAI', async () => {
    const alone = await chooseProviders({ CARTESIA_API_KEY: 'ca-key' });
    expect(alone.tts).toBeInstanceOf(CartesiaTTS);
    expect(alone.understands).toBe(false);
    expect(alone.notices[0]?.message).toContain('answers with Cartesia (streaming)');
    const full = await chooseProviders({ OPENAI_API_KEY: 'sk-test', CARTESIA_API_KEY: 'ca-key' });
    expect(full.tts).toBeInstanceOf(CartesiaTTS);
    expect(full.llm).toBeInstanceOf(openai.LLM);
    expect(full.notices[0]?.message).toContain('voice by Cartesia (streaming)');
    expect(full.notices.map((n) => n.message).join('\n')).not.toContain('not released yet');
    await alone.tts.close?.();
    await full.tts.close?.();
  });
});

describe('offline stand-ins', () => {
  it('describe what was heard and hint at what a key would unlock', () => {
    expect(heardSeconds('(1.4 s of speech)')).toBe(1.4);
    expect(heardSeconds('hello')).toBeUndefined();
    const ctx = new ChatContext();
    ctx.addMessage({ role: 'user', content: '(1.4 s of speech)' });
    expect(offlineReply(toLLMMessages(ctx))).toMatch(
      /^I heard you speak for 1\.4 seconds\. I'm running offline/u,
    );
    ctx.addMessage({ role: 'assistant', content: 'ok' });
    ctx.addMessage({ role: 'user', content: 'typed words' });
    expect(offlineReply(toLLMMessages(ctx))).toMatch(/^You typed: typed words\. .*OPENAI_API_KEY/u);
  });
});

describe('the minimal example', () => {
  it('is an agent file the CLI can load', async () => {
    const { isAgentDefinition } = await import('@voxwire/agents');
    const minimal = await import('./minimal.js');
    expect(isAgentDefinition(minimal.default)).toBe(true);
  });
});
